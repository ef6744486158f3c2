// Carrying out one action on the tab as a person would, and noting what the page did after it.
#include <cstdio>
#include <thread>

#include "agent/agent.h"

namespace vimgpt::agent {
namespace {

ActResult failed(const Error& error) {
  return {false, error.message, std::nullopt};
}

// Replaces <secret:NAME> with its value at the last moment, so values never reach the model or a record.
Result<std::string> with_secrets(std::string text, const std::map<std::string, std::string>& secrets) {
  std::size_t at = 0;
  while ((at = text.find("<secret:", at)) != std::string::npos) {
    const auto end = text.find('>', at);
    if (end == std::string::npos) break;
    const std::string name = text.substr(at + 8, end - at - 8);
    const auto it = secrets.find(name);
    if (it == secrets.end()) return fail(ErrorKind::NotFound, "there is no secret named " + name);
    text.replace(at, end - at + 1, it->second);
    at += it->second.size();
  }
  return text;
}

// How long a click that should open a file chooser may take to open one.
constexpr milliseconds kFileChooserCap{3000};

std::string count_text(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Actor::Actor(browser::Tab& tab, const AgentOptions& options) : tab_(tab), options_(options) {}

bool Actor::interrupted() const {
  return options_.interrupted != nullptr && options_.interrupted->load();
}

ActResult Actor::click(const hints::HintMap& map, const std::string& label, hints::Effect* effect) {
  auto outcome = hints::click_label(tab_, map, label);
  if (!outcome) return failed(outcome.error());
  if (effect != nullptr) *effect = outcome->effect;
  std::string message = "clicked " + outcome->hint.role + " \"" + outcome->hint.text + "\"";
  if (outcome->effect == hints::Effect::OptionsListed) {
    message += "; its options are:";
    for (const auto& option : outcome->options) message += " \"" + option.text + "\"";
    message += " (choose one with {\"select\": \"" + outcome->hint.label + "\", \"option\": TEXT})";
  }
  return {true, message, outcome->hint.rect};
}

ActResult Actor::select(const hints::HintMap& map, const std::string& label, const std::string& option) {
  auto chosen = hints::select_option(tab_, map, label, option);
  if (!chosen) return failed(chosen.error());
  return {true, "selected \"" + chosen->selected + "\"", chosen->hint.rect};
}

ActResult Actor::act(const Action& action, const hints::Capture& capture) {
  switch (action.kind) {
    case ActionKind::Done: return {true, "done", std::nullopt};
    case ActionKind::Click: return click(capture.map, action.label);
    case ActionKind::ClickType: {
      // Click, then type, then Enter, once (the seed typed the text twice). Typing into a drop-down
      // chooses the option it names, as it does for a person.
      hints::Effect effect = hints::Effect::Clicked;
      ActResult clicked = click(capture.map, action.label, &effect);
      if (!clicked.ok) return clicked;
      if (effect == hints::Effect::OptionsListed) return select(capture.map, action.label, action.text);
      ActResult typed = type_into_focus(action.text, action.enter);
      typed.message = clicked.message + ", then " + typed.message;
      typed.target = clicked.target;
      return typed;
    }
    case ActionKind::Type: return type_into_focus(action.text, action.enter);
    case ActionKind::Navigate: {
      if (auto loaded = tab_.navigate(action.text); !loaded) return failed(loaded.error());
      return {true, "loaded " + action.text, std::nullopt};
    }
    case ActionKind::Select: return select(capture.map, action.label, action.text);
    case ActionKind::Upload: {
      auto path = upload_path(options_.upload_dir, action.text);
      if (!path) return failed(path.error());
      auto uploaded = hints::upload_files(tab_, capture.map, action.label, {*path}, kFileChooserCap);
      if (!uploaded) return failed(uploaded.error());
      return {true,
              "chose the file " + action.text + " with " + uploaded->hint.role + " \"" + uploaded->hint.text + "\"",
              uploaded->hint.rect};
    }
    case ActionKind::SwitchTab: {
      if (auto switched = tab_.switch_page(action.tab); !switched) return failed(switched.error());
      return {true, "switched to tab " + std::to_string(action.tab), std::nullopt};
    }
    case ActionKind::CloseTab: {
      if (auto closed = tab_.close_page(); !closed) return failed(closed.error());
      return {true, "closed the tab; back in the one before it", std::nullopt};
    }
    case ActionKind::Ask: return {false, "the question was not put to anyone", std::nullopt};  // run() asks
    case ActionKind::ClickAt: {
      // The model points in pixels of the frame it saw; the page wants viewport CSS pixels.
      const double scale = capture.labelled.width > 0 ? capture.map.viewport_width() / capture.labelled.width : 1.0;
      const browser::Point point{action.x * scale, action.y * scale};
      if (auto clicked = tab_.click(point); !clicked) return failed(clicked.error());
      return {true, "clicked at (" + std::to_string(int(point.x)) + ", " + std::to_string(int(point.y)) + ")",
              hints::Rect{point.x - 8, point.y - 8, 16, 16}};
    }
    case ActionKind::Scroll: {
      if (auto scrolled = tab_.scroll(action.direction); !scrolled) return failed(scrolled.error());
      return {true, describe(action), std::nullopt};
    }
    case ActionKind::Back: {
      if (auto back = tab_.go_back(); !back) return failed(back.error());
      return {true, "went back", std::nullopt};
    }
    case ActionKind::Key: {
      auto key = browser::parse_key(action.text);
      if (!key) return failed(key.error());
      if (auto pressed = tab_.press_key(*key); !pressed) return failed(pressed.error());
      return {true, "pressed " + std::string(browser::to_string(*key)), std::nullopt};
    }
    case ActionKind::Wait: return wait(action);
  }
  return {false, "unknown action", std::nullopt};
}

// A wait the model asked for (at most 10 s). Ctrl-C sets a flag from a signal handler, which can notify
// nothing: the wait looks at it every 50 ms, so an interrupted run stops at once and still records this step.
ActResult Actor::wait(const Action& action) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto until = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(action.seconds));
  constexpr milliseconds kLook{50};
  for (auto now = start; now < until; now = Clock::now()) {
    if (interrupted()) {
      char text[96];
      std::snprintf(text, sizeof text, "waited %.1f s of %.1f s: interrupted (Ctrl-C)",
                    std::chrono::duration<double>(now - start).count(), action.seconds);
      return {true, text, std::nullopt};
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(kLook, until - now));
  }
  return {true, describe(action), std::nullopt};
}

// Types into what has the focus, then presses Enter as the seed does, unless the form would be submitted
// with other fields still empty (a person fills the password first) or the model said otherwise. A focused
// drop-down gets the option the text names instead.
ActResult Actor::type_into_focus(const std::string& text, Enter enter) {
  auto field = hints::focused_field(tab_);
  if (!field) return failed(field.error());
  if (field->kind == hints::FocusKind::Choice) {
    auto chosen = hints::select_focused_option(tab_, text);
    if (!chosen) return failed(chosen.error());
    return {true, "selected \"" + chosen->selected + "\"", std::nullopt};
  }
  if (field->kind == hints::FocusKind::None) {
    return {false, "nothing focused to type into: click a text field first", std::nullopt};
  }
  auto value = with_secrets(text, options_.secrets);
  if (!value) return failed(value.error());
  if (*value != text) {
    // The field will show the value unless the page masks it: every later frame paints it over.
    if (auto marked = hints::mark_secret_field(tab_); !marked) return failed(marked.error());
  }
  if (auto typed = tab_.type_text(*value); !typed) return failed(typed.error());
  std::string message = "typed " + count_text(text.size(), "character", "characters");
  const auto& empty = field->empty_fields;
  if (enter == Enter::Skip) return {true, message + "; did not press Enter (\"enter\": false)", std::nullopt};
  if (enter == Enter::Auto && !empty.empty()) {
    std::string names;
    for (const auto& name : empty) names += (names.empty() ? "" : ", ") + name;
    return {true,
            message + "; did not press Enter: " + count_text(empty.size(), "empty field", "empty fields") +
                " left in this form (" + names + ")",
            std::nullopt};
  }
  if (auto entered = tab_.press_key(browser::Key::Enter); !entered) return failed(entered.error());
  return {true, message + " and pressed Enter", std::nullopt};
}

// Downloads the last action started, once they end (or the settle cap passes).
void Actor::report_downloads(ActResult& acted) {
  for (const auto& download : tab_.take_downloads(options_.settle_cap)) {
    if (download.state == browser::DownloadState::Completed) {
      acted.message +=
          "; downloaded " + download.url + " (" + std::to_string(download.bytes) + " bytes) to " + download.file;
    } else if (download.state == browser::DownloadState::InProgress) {
      acted.message +=
          "; a download of " + download.url + " is still going (" + std::to_string(download.bytes) + " bytes so far)";
    } else {
      acted.message += "; a download of " + download.url +
                       " was not saved (downloads are kept only with "
                       "--record or --download-dir)";
    }
  }
}

void Actor::after(const Action& action, ActResult& acted) {
  // navigate and back waited for their page already. The quiet windows (the network's after a navigation, the
  // DOM's after an action that did not navigate) are left to the next capture, which is taken in them
  // (hints::capture).
  const bool navigated = action.kind == ActionKind::Navigate || action.kind == ActionKind::Back;
  if (auto settled = navigated ? Status(ok())
                               : tab_.settle(options_.settle_cap, milliseconds{150}, browser::SettleWait::LeaveOpen);
      !settled && settled.error().kind == ErrorKind::BrowserExited) {
    acted = failed(settled.error());
  }
  const auto blocked = tab_.take_blocked();
  for (const auto& refused : blocked) {
    acted.ok = false;
    acted.message += "; navigation to " + refused.url + " was blocked: " + refused.reason;
  }
  if (!blocked.empty()) [[maybe_unused]]
    auto stayed = tab_.leave_error_page();
  for (const auto& dialog : tab_.take_dialogs()) {
    acted.message += "; the page showed a " + std::string(browser::to_string(dialog.type)) + " dialog: \"" +
                     dialog.message + "\" (dismissed)";
  }
  if (tab_.alive()) report_downloads(acted);
  if (tab_.crashed()) acted.message += "; the page crashed";
}

}  // namespace vimgpt::agent
