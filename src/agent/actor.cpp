// Carrying out one action on the tab as a person would, and noting what the page did after it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "agent/agent.h"
#include "common/text.h"
#include "common/url.h"
#include "pdf/pdf.h"

namespace vimgpt::agent {
namespace {

// A navigate target: a whole URL as it is, a path ("/item/64", as the label lists write a link on the page's own
// site) on the page's origin.
Result<std::string> on_this_site(const std::string& target, const std::string& page) {
  if (!target.starts_with('/')) return target;
  const std::string_view origin = url_origin(page);
  if (origin.empty() || !page.starts_with("http")) {
    return fail(ErrorKind::InvalidArgument, "\"" + target + "\" is a path on the page's site, and this page (" +
                                                (page.empty() ? "none yet" : page) +
                                                ") has none: navigate to a whole URL");
  }
  return std::string(origin) + target;
}

// A dialog the page showed and how it was answered, for the model.
std::string dialog_note(const browser::Dialog& dialog) {
  const std::string shown = "\"" + dialog.message + "\"";
  switch (dialog.type) {
    case browser::DialogType::Alert: return "the page showed an alert: " + shown + " (closed)";
    case browser::DialogType::BeforeUnload:
      return std::string("the page asked to confirm leaving it, and ") +
             (dialog.accepted ? "it was left" : "it stayed") +
             (dialog.as_told ? ", as you said" : " (to stay, reply {\"dialog\": \"dismiss\"}, then do this again)");
    case browser::DialogType::Confirm:
    case browser::DialogType::Prompt: break;
  }
  const bool prompt = dialog.type == browser::DialogType::Prompt;
  std::string note = "the page asked " + shown + (prompt ? " (a prompt)" : " (a confirm)");
  if (!dialog.accepted) {
    note += " and it was dismissed";
  } else {
    note += prompt ? " and it was answered \"" + dialog.text + "\"" : std::string(" and it was accepted");
  }
  if (dialog.as_told) return note + ", as you said";
  return note + (prompt ? ": to answer it, reply {\"dialog\": \"accept\", \"dialog_text\": \"your answer\"}, then do "
                          "this again"
                        : ": to accept it, reply {\"dialog\": \"accept\"}, then do this again");
}

// A point acted at, as the report circles it.
hints::Rect around(browser::Point point) {
  return {point.x - 8, point.y - 8, 16, 16};
}

// "at (x, y)", whole pixels.
std::string at_point(double x, double y) {
  return "at (" + std::to_string(static_cast<int>(x)) + ", " + std::to_string(static_cast<int>(y)) + ")";
}

// How long a click that should open a file chooser may take to open one.
constexpr milliseconds kFileChooserCap{3000};

}  // namespace

Actor::Actor(browser::Tab& tab, const AgentOptions& options) : tab_(tab), options_(options) {}

bool Actor::interrupted() const {
  return options_.interrupted != nullptr && options_.interrupted->load();
}

ActResult Actor::click(const hints::HintMap& map, const std::string& label, hints::Effect* effect) {
  auto outcome = hints::click_label(tab_, map, label);
  if (!outcome) return failed(outcome.error());
  if (effect != nullptr) *effect = outcome->effect;
  pointer_ = outcome->point;
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
      auto target = on_this_site(action.text, tab_.last_url());
      if (!target) return failed(target.error());
      // The network-quiet window after the load is the next capture's, which is taken in it (as after a click).
      if (auto loaded = tab_.navigate(*target, browser::SettleWait::LeaveOpen); !loaded) return failed(loaded.error());
      return {true, "loaded " + *target, std::nullopt};
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
    case ActionKind::Page: return turn_to_page(action.page);
    case ActionKind::SwitchTab: {
      if (auto switched = tab_.switch_page(action.tab); !switched) return failed(switched.error());
      return {true, "switched to tab " + std::to_string(action.tab), std::nullopt};
    }
    case ActionKind::CloseTab: {
      if (auto closed = tab_.close_page(); !closed) return failed(closed.error());
      return {true, "closed the tab; back in the one before it", std::nullopt};
    }
    // The loop's own: it asks, or hands the page over.
    case ActionKind::Ask: return {false, "the question was not put to anyone", std::nullopt};
    case ActionKind::Handoff: return {false, "nobody was there to hand the page to", std::nullopt};
    case ActionKind::ClickAt: {
      // The model points in pixels of the frame it saw; the page wants viewport CSS pixels.
      auto at = action_point(action, capture);
      if (!at) return failed(at.error());
      const browser::Point point = *at;
      if (auto clicked = tab_.click(point); !clicked) return failed(clicked.error());
      pointer_ = point;
      return {true,
              std::string("clicked ") + (action.at_pointer ? "where the pointer rested, " : "") +
                  at_point(point.x, point.y),
              around(point)};
    }
    case ActionKind::Scroll: return scroll(action, capture);
    case ActionKind::Back: {
      if (auto back = tab_.go_back(); !back) return failed(back.error());
      return {true, "went back", std::nullopt};
    }
    case ActionKind::Key: {
      auto keys = browser::parse_keys(action.text);
      if (!keys) return failed(keys.error());
      if (auto pressed = tab_.press(*keys); !pressed) return failed(pressed.error());
      return {true, "pressed " + browser::to_string(*keys), std::nullopt};
    }
    case ActionKind::Wait: return wait(action);
    case ActionKind::Zoom: return zoom(action, capture);
    case ActionKind::Hover: {
      if (action.label.empty()) {
        auto point = frame_point(action.x, action.y, capture);
        if (!point) return failed(point.error());
        if (auto moved = tab_.move_mouse(*point); !moved) return failed(moved.error());
        pointer_ = *point;
        return {true, "the pointer rests " + at_point(action.x, action.y), around(*point)};
      }
      auto at = hints::hover_label(tab_, capture.map, action.label);
      if (!at) return failed(at.error());
      pointer_ = at->point;
      return {true, "the pointer rests on " + at->hint.role + " \"" + at->hint.text + "\"", at->hint.rect};
    }
    case ActionKind::DoubleClick:
    case ActionKind::TripleClick:
    case ActionKind::RightClick: {
      const bool right = action.kind == ActionKind::RightClick;
      const auto button = right ? browser::MouseButton::Right : browser::MouseButton::Left;
      const int clicks = action.kind == ActionKind::TripleClick ? 3 : action.kind == ActionKind::DoubleClick ? 2 : 1;
      const std::string done = right ? "right-clicked " : clicks == 3 ? "triple-clicked " : "double-clicked ";
      if (action.label.empty()) {
        auto point = action_point(action, capture);
        if (!point) return failed(point.error());
        if (auto clicked = tab_.click(*point, button, clicks); !clicked) return failed(clicked.error());
        pointer_ = *point;
        return {true, done + (action.at_pointer ? "where the pointer rested" : at_point(action.x, action.y)),
                around(*point)};
      }
      auto at = hints::click_label_with(tab_, capture.map, action.label, button, clicks);
      if (!at) return failed(at.error());
      pointer_ = at->point;
      return {true, done + at->hint.role + " \"" + at->hint.text + "\"", at->hint.rect};
    }
    case ActionKind::Drag: return drag(action, capture);
    case ActionKind::SelectText: {
      auto selected = hints::select_words(tab_, capture.map, action.text, action.in);
      if (!selected) return failed(selected.error());
      return {
          true,
          "selected \"" + selected->selected + "\"" +
              (selected->by_drag ? "" : " (the drag did not land on the words exactly: the selection was set on them)"),
          std::nullopt};
    }
    case ActionKind::Actions: return act_all(action, capture);
    case ActionKind::Dialog: {
      tab_.answer_dialogs(browser::DialogAnswer{action.accept, action.text});
      dialog_answer_held_ = true;
      return {true,
              "a confirm, prompt or leave-page dialog the page opens during the next action will be " +
                  std::string(action.accept ? "accepted" : "dismissed") +
                  (action.text.empty() ? "" : " (a prompt answered \"" + action.text + "\")"),
              std::nullopt};
    }
  }
  return {false, "unknown action", std::nullopt};
}

// A point the model gave in pixels of the frame it saw, in viewport CSS px; refused when outside the frame.
Result<browser::Point> Actor::frame_point(double x, double y, const hints::Capture& capture) const {
  const int width = capture.labelled.width;
  const int height = capture.labelled.height;
  if (width > 0 && (x >= width || y >= height)) {
    return fail(ErrorKind::InvalidArgument, "the point (" + std::to_string(static_cast<int>(x)) + ", " +
                                                std::to_string(static_cast<int>(y)) + ") is outside the " +
                                                std::to_string(width) + "x" + std::to_string(height) + " screenshot");
  }
  const double scale = width > 0 ? capture.map.viewport_width() / width : 1.0;
  return browser::Point{x * scale, y * scale};
}

Result<browser::Point> Actor::action_point(const Action& action, const hints::Capture& capture) const {
  if (!action.at_pointer) return frame_point(action.x, action.y, capture);
  if (!pointer_) {
    return fail(ErrorKind::InvalidArgument,
                "the pointer has not been put anywhere yet in this run: give the point to act at (or move the mouse "
                "there first)");
  }
  return *pointer_;
}

// The page scrolled by most of a screen; an element by the wheel turned over it (its label, or a point: what is
// under the point scrolls, the innermost scrollable first, as under a person's mouse), saying what moved.
ActResult Actor::scroll(const Action& action, const hints::Capture& capture) {
  if (action.in.empty() && !action.in_point) {
    if (auto scrolled = tab_.scroll(action.direction); !scrolled) return failed(scrolled.error());
    return {true, describe(action), std::nullopt};
  }
  const auto wheel = [&]() -> Result<hints::ScrollOutcome> {
    if (!action.in_point) return hints::scroll_label(tab_, capture.map, action.in, action.direction);
    VIMGPT_TRY(browser::Point point, frame_point(action.x, action.y, capture));
    return hints::scroll_at(tab_, point, action.direction);
  };
  auto scrolled = wheel();
  if (!scrolled) return failed(scrolled.error());
  pointer_ = scrolled->point;
  const auto target = action.in_point ? around(scrolled->point) : scrolled->hint.rect;
  if (!scrolled->measurable) {
    return {true, "turned the wheel over " + scrolled->what + " (a frame whose position cannot be read)", target};
  }
  return {true,
          "scrolled " + scrolled->what + " " + (scrolled->moved > 0 ? "down" : "up") + " by " +
              std::to_string(static_cast<int>(std::abs(scrolled->moved))) + " px",
          target};
}

// The region captured on its own, as large as the frame allows (its aspect kept): Chromium renders it anew at that
// scale, so small print reads better than in the frame; Firefox's capture is scaled up. The page is not touched.
ActResult Actor::zoom(const Action& action, const hints::Capture& capture) {
  const int width = capture.labelled.width;
  const int height = capture.labelled.height;
  // A corner on the frame's far edge is the edge itself.
  auto top_left = frame_point(action.x, action.y, capture);
  auto bottom_right = frame_point(std::min(action.to_x, width - 0.5), std::min(action.to_y, height - 0.5), capture);
  if (!top_left) return failed(top_left.error());
  if (!bottom_right) return failed(bottom_right.error());
  browser::ScreenshotOptions options;
  options.format = ImageFormat::Jpeg;
  options.quality = 85;
  options.region = browser::ViewportBox{top_left->x, top_left->y, std::max(1.0, bottom_right->x - top_left->x),
                                        std::max(1.0, bottom_right->y - top_left->y)};
  options.scale = std::clamp(std::min(width / options.region->width, height / options.region->height), 0.25, 4.0);
  auto shot = tab_.screenshot(options);
  if (!shot) return failed(shot.error());
  ActResult looked{true,
                   describe(action) + ": the region is shown at " + std::to_string(shot->width) + "x" +
                       std::to_string(shot->height) + " in place of the page's screenshot; the page was not touched",
                   std::nullopt};
  looked.closer_look = std::move(*shot);
  return looked;
}

ActResult Actor::drag(const Action& action, const hints::Capture& capture) {
  // Each end: a labelled element's visible point, or a point of the frame.
  const auto end = [&](const std::string& label, double x, double y) -> Result<std::pair<browser::Point, std::string>> {
    if (label.empty()) {
      VIMGPT_TRY(browser::Point point, frame_point(x, y, capture));
      return std::pair{point,
                       "(" + std::to_string(static_cast<int>(x)) + ", " + std::to_string(static_cast<int>(y)) + ")"};
    }
    VIMGPT_TRY(hints::PointedAt at, hints::point_at(tab_, capture.map, label));
    return std::pair{at.point, at.hint.role + " \"" + at.hint.text + "\""};
  };
  const auto start = [&]() -> Result<std::pair<browser::Point, std::string>> {
    if (!action.at_pointer) return end(action.label, action.x, action.y);
    VIMGPT_TRY(browser::Point point, action_point(action, capture));
    return std::pair{point, std::string("from where the pointer rested")};
  };
  auto from = start();
  if (!from) return failed(from.error());
  auto to = end(action.to_label, action.to_x, action.to_y);
  if (!to) return failed(to.error());
  auto dragged = tab_.drag(from->first, to->first);
  if (!dragged) return failed(dragged.error());
  pointer_ = to->first;
  std::optional<hints::Rect> target;
  if (const auto* hint = capture.map.find(action.label)) target = hint->rect;
  return {true,
          "dragged " + from->second + " to " + to->second +
              (*dragged ? " (the page took it as a drag and drop)" : " (with the mouse button held)"),
          target};
}

// Several actions in one reply, in order, on the labels of the same capture. It stops at the first that fails,
// when the page navigates (the labels are of the page before), or when what was acted on is gone or covered (a
// dialog opened over it): the rest may no longer mean what they meant.
ActResult Actor::act_all(const Action& list, const hints::Capture& capture) {
  const std::uint64_t generation = tab_.page_generation();
  const std::string url = tab_.last_url();
  ActResult all{true, "", std::nullopt};
  std::string stopped;
  for (std::size_t i = 0; i < list.actions.size(); ++i) {
    const Action& one = list.actions[i];
    const std::string number = std::to_string(i + 1) + ". " + describe(one) + ": ";
    if (!stopped.empty()) {
      all.message.append("\n").append(number).append("not done: ").append(stopped);
      continue;
    }
    ActResult done = one.kind == ActionKind::Done ? ActResult{true, "done", std::nullopt} : act(one, capture);
    all.message.append("\n").append(number).append(done.ok ? "done: " : "not done: ").append(done.message);
    if (!all.target) all.target = done.target;
    if (done.closer_look) all.closer_look = std::move(done.closer_look);
    if (!done.ok) {
      all.ok = false;
      stopped = "action " + std::to_string(i + 1) + " failed";
      continue;
    }
    if (i + 1 == list.actions.size()) break;
    // The page's first reaction before the next action, as a person looks before going on.
    if (auto settled = tab_.settle(options_.settle_cap, milliseconds{50}); !settled) {
      stopped = "the page did not settle after action " + std::to_string(i + 1) + ": " + settled.error().message;
      continue;
    }
    if (tab_.page_generation() != generation || tab_.last_url() != url) {
      stopped = "the page navigated after action " + std::to_string(i + 1) + ", and its labels are of the page before";
      continue;
    }
    if (const auto* hint = one.label.empty() ? nullptr : capture.map.find(one.label)) {
      if (auto seen = hints::still_in_view(tab_, capture.map, *hint); seen && !*seen) {
        stopped = "after action " + std::to_string(i + 1) + " its element " + hint->label +
                  " is gone or covered (something opened over it)";
      }
    }
  }
  for (std::size_t i = 0; i < list.over_limit.size(); ++i) {
    const std::size_t number = list.actions.size() + i + 1;
    auto one = parse_action(list.over_limit[i]);
    all.message.append("\n")
        .append(std::to_string(number) + ". " + (one ? describe(*one) : list.over_limit[i].dump()))
        .append(": not done: a reply holds at most " + std::to_string(list.actions.size()) +
                " actions; send it again next step if it is still needed");
  }
  const std::size_t count = list.actions.size() + list.over_limit.size();
  all.message = std::to_string(count) + (count == 1 ? " action:" : " actions:") + all.message;
  return all;
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

// Downloads the last action started, once they end (or the settle cap passes). A PDF is shown in the tab; another
// file saved only because the browser needs a folder (no --download-dir or --record) is deleted at once.
void Actor::report_downloads(ActResult& acted) {
  // A link to a file is a navigation until the response says it is a download: while a request is still in flight,
  // its download may not have begun, and would be told a step late.
  if (!tab_.network_state().idle) tab_.wait_network_quiet();
  for (const auto& download : tab_.take_downloads(options_.settle_cap)) {
    if (download.state == browser::DownloadState::Completed && pdf::is_pdf(download.file)) {
      acted.message += "; " + open_pdf(download);
    } else if (download.state == browser::DownloadState::Completed && !download.kept) {
      std::error_code ignored;
      std::filesystem::remove(download.file, ignored);
      acted.message += "; a download of " + download.url +
                       " was not saved (downloads are kept only with --record or --download-dir)";
    } else if (download.state == browser::DownloadState::Completed) {
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

// Each dialog the page opened, how it was answered, and for a question the default answered, how to answer it
// otherwise.
void Actor::report_dialogs(ActResult& acted) {
  for (const auto& dialog : tab_.take_dialogs()) {
    acted.message += "; ";
    acted.message += dialog_note(dialog);
  }
}

void Actor::keep_tabs_within_limit(ActResult& acted) {
  const int cap = options_.max_tabs;
  if (cap <= 0 || tab_.page_count() <= static_cast<std::size_t>(cap)) return;
  std::string closed;
  int count = 0;
  while (tab_.page_count() > static_cast<std::size_t>(cap)) {
    auto pages = tab_.pages();
    if (!pages) break;
    const auto oldest = std::find_if(pages->begin(), pages->end(), [](const auto& page) { return !page.current; });
    if (oldest == pages->end() || !tab_.switch_page(oldest->number) || !tab_.close_page()) break;
    closed += (closed.empty() ? "" : ", ") + url_host(oldest->url);
    ++count;
  }
  if (count == 0) return;
  acted.message += std::string(count == 1 ? "; closed the oldest tab (" : "; closed the oldest tabs (") + closed +
                   ") to keep at most " + std::to_string(cap) + " open (--max-tabs); the tabs left are numbered anew";
}

void Actor::after(const Action& action, ActResult& acted) {
  // navigate and back waited for their page's load already. The quiet windows (the network's after a navigation,
  // the DOM's after an action that did not navigate) are left to the next capture, which is taken in them
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
  for (const auto& challenge : tab_.take_auth_challenges()) acted.message += "; " + describe(challenge);
  report_dialogs(acted);
  // A {"dialog"} answer holds for the one action after it (in a list, the ones after it), then lapses.
  const bool sets_answer =
      action.kind == ActionKind::Dialog || (action.kind == ActionKind::Actions && !action.actions.empty() &&
                                            action.actions.back().kind == ActionKind::Dialog);
  if (dialog_answer_held_ && !sets_answer) {
    tab_.answer_dialogs(std::nullopt);
    dialog_answer_held_ = false;
  }
  if (tab_.alive()) report_downloads(acted);
  if (tab_.crashed()) acted.message += "; the page crashed";
}

}  // namespace vimgpt::agent
