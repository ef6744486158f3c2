// The step loop: capture (hints drawn) → plan → act → settle → record → repeat, within the budgets.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "agent/agent.h"
#include "agent/recorder.h"

namespace vimgpt::agent {
namespace {

using Clock = std::chrono::steady_clock;

milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
}

struct ActResult {
  bool ok = true;
  std::string message;
  std::optional<hints::Rect> target;
};

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

struct Agent::Impl {
  Impl(AgentOptions agent_options, browser::Tab& working_tab, std::unique_ptr<Planner> step_planner)
      : options(std::move(agent_options)), tab(working_tab), planner(std::move(step_planner)) {}

  AgentOptions options;
  browser::Tab& tab;
  std::unique_ptr<Planner> planner;
  std::unique_ptr<Recorder> recorder;
  std::vector<vision::HistoryEntry> history;
  std::mutex wait_mutex;
  std::condition_variable wait_cv;
  int restarts = 0;

  // Before a capture: a page whose renderer crashed is loaded again, and a local browser that died is
  // started again at `url` (at most max_restarts times a run). Returns what was done, for the model and
  // the record; an error when the browser cannot be brought back.
  Result<std::string> recover(const std::string& url) {
    if (tab.alive() && !tab.crashed()) return std::string();
    std::string done;
    if (tab.alive()) {
      done = "the page crashed (its renderer died) and was loaded again";
    } else {
      const std::string why = tab.closed_reason();
      if (restarts >= options.max_restarts) {
        return fail(ErrorKind::BrowserExited,
                    "the browser exited (" + why + ")" +
                        (options.max_restarts > 0 ? "; the " + std::to_string(options.max_restarts) +
                                                        " restart(s) --max-restarts allows are used up"
                                                  : std::string()));
      }
      ++restarts;
      if (auto started = tab.relaunch(); !started)
        return fail(ErrorKind::BrowserExited,
                    "the browser exited (" + why + ") and could not be started again: " + started.error().message);
      done = "the browser exited (" + why + ") and was started again (restart " + std::to_string(restarts) + " of " +
             std::to_string(options.max_restarts) + ")";
    }
    if (url.empty()) return done;
    if (auto loaded = tab.navigate(url); !loaded) {
      if (loaded.error().kind == ErrorKind::BrowserExited) return loaded.failure();
      return done + "; loading " + url + " again failed: " + loaded.error().message;
    }
    return done + "; " + url + " was loaded again, so what the last action did may be lost";
  }

  // Downloads the last action started, once they end (or the settle cap passes).
  void report_downloads(ActResult& acted) {
    for (const auto& download : tab.take_downloads(options.settle_cap)) {
      if (download.state == "completed") {
        acted.message +=
            "; downloaded " + download.url + " (" + std::to_string(download.bytes) + " bytes) to " + download.file;
      } else if (download.state == "inProgress") {
        acted.message +=
            "; a download of " + download.url + " is still going (" + std::to_string(download.bytes) + " bytes so far)";
      } else {
        acted.message += "; a download of " + download.url +
                         " was not saved (downloads are kept only with "
                         "--record or --download-dir)";
      }
    }
  }

  // The open tabs for the prompt, when there is more than one (asking costs nothing when there is one).
  std::vector<vision::TabEntry> open_tabs() {
    std::vector<vision::TabEntry> listed;
    auto pages = tab.pages();
    if (!pages || pages->size() < 2) return listed;
    for (const auto& page : *pages) listed.push_back({page.number, page.title, url_host(page.url), page.current});
    return listed;
  }

  bool interrupted() const { return options.interrupted != nullptr && options.interrupted->load(); }

  // Types into what has the focus, then presses Enter as the seed does, unless the form would be submitted
  // with other fields still empty (a person fills the password first) or the model said otherwise. A focused
  // drop-down gets the option the text names instead.
  ActResult type_into_focus(const std::string& text, Enter enter) {
    auto field = hints::focused_field(tab);
    if (!field) return failed(field.error());
    if (field->kind == hints::FocusKind::Choice) {
      auto chosen = hints::select_focused_option(tab, text);
      if (!chosen) return failed(chosen.error());
      return {true, "selected \"" + chosen->selected + "\"", std::nullopt};
    }
    if (field->kind == hints::FocusKind::None) {
      return {false, "nothing focused to type into: click a text field first", std::nullopt};
    }
    auto value = with_secrets(text, options.secrets);
    if (!value) return failed(value.error());
    if (*value != text) {
      // The field will show the value unless the page masks it: every later frame paints it over.
      if (auto marked = hints::mark_secret_field(tab); !marked) return failed(marked.error());
    }
    if (auto typed = tab.type_text(*value); !typed) return failed(typed.error());
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
    if (auto entered = tab.press_key(browser::Key::Enter); !entered) return failed(entered.error());
    return {true, message + " and pressed Enter", std::nullopt};
  }

  // {"ask"}: the person's answer goes into the next step; nobody to ask ends the run (the caller's part).
  std::optional<std::string> ask_person(const std::string& question) {
    if (!options.ask) return std::nullopt;
    return options.ask(question);
  }

  ActResult click(const hints::HintMap& map, const std::string& label, hints::Effect* effect = nullptr) {
    auto outcome = hints::click_label(tab, map, label);
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

  ActResult select(const hints::HintMap& map, const std::string& label, const std::string& option) {
    auto chosen = hints::select_option(tab, map, label, option);
    if (!chosen) return failed(chosen.error());
    return {true, "selected \"" + chosen->selected + "\"", chosen->hint.rect};
  }

  ActResult act(const Action& action, const hints::Capture& capture) {
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
        if (auto loaded = tab.navigate(action.text); !loaded) return failed(loaded.error());
        return {true, "loaded " + action.text, std::nullopt};
      }
      case ActionKind::Select: return select(capture.map, action.label, action.text);
      case ActionKind::Upload: {
        auto path = upload_path(options.upload_dir, action.text);
        if (!path) return failed(path.error());
        auto uploaded = hints::upload_files(tab, capture.map, action.label, {*path}, kFileChooserCap);
        if (!uploaded) return failed(uploaded.error());
        return {true,
                "chose the file " + action.text + " with " + uploaded->hint.role + " \"" + uploaded->hint.text + "\"",
                uploaded->hint.rect};
      }
      case ActionKind::SwitchTab: {
        if (auto switched = tab.switch_page(action.tab); !switched) return failed(switched.error());
        return {true, "switched to tab " + std::to_string(action.tab), std::nullopt};
      }
      case ActionKind::CloseTab: {
        if (auto closed = tab.close_page(); !closed) return failed(closed.error());
        return {true, "closed the tab; back in the one before it", std::nullopt};
      }
      case ActionKind::Ask: return {false, "the question was not put to anyone", std::nullopt};  // run() asks
      case ActionKind::ClickAt: {
        // The model points in pixels of the frame it saw; the page wants viewport CSS pixels.
        const double scale = capture.labelled.width > 0 ? capture.map.viewport_width() / capture.labelled.width : 1.0;
        const browser::Point point{action.x * scale, action.y * scale};
        if (auto clicked = tab.click(point); !clicked) return failed(clicked.error());
        return {true, "clicked at (" + std::to_string(int(point.x)) + ", " + std::to_string(int(point.y)) + ")",
                hints::Rect{point.x - 8, point.y - 8, 16, 16}};
      }
      case ActionKind::Scroll: {
        if (auto scrolled = tab.scroll(action.direction); !scrolled) return failed(scrolled.error());
        return {true, describe(action), std::nullopt};
      }
      case ActionKind::Back: {
        if (auto back = tab.go_back(); !back) return failed(back.error());
        return {true, "went back", std::nullopt};
      }
      case ActionKind::Key: {
        auto key = browser::parse_key(action.text);
        if (!key) return failed(key.error());
        if (auto pressed = tab.press_key(*key); !pressed) return failed(pressed.error());
        return {true, "pressed " + std::string(browser::to_string(*key)), std::nullopt};
      }
      case ActionKind::Wait: {
        // A wait the model asked for; Ctrl-C still ends it at once.
        std::unique_lock lock(wait_mutex);
        wait_cv.wait_for(lock, std::chrono::duration<double>(action.seconds), [&] { return interrupted(); });
        return {true, describe(action), std::nullopt};
      }
    }
    return {false, "unknown action", std::nullopt};
  }

  RunResult finish(RunResult result, Clock::time_point started, int steps) {
    result.steps = steps;
    result.usage = planner->usage();
    result.elapsed = since(started);
    if (recorder) {
      result.record_dir = recorder->dir();
      recorder->finish(result);
    }
    return result;
  }
};

Agent::Agent(AgentOptions options, browser::Tab& tab, std::unique_ptr<Planner> planner)
    : impl_(std::make_unique<Impl>(std::move(options), tab, std::move(planner))) {}

Agent::~Agent() = default;

RunResult Agent::run(const StepCallback& on_step) {
  Impl& s = *impl_;
  const auto started = Clock::now();
  RunResult result;
  if (!s.options.record_dir.empty()) {
    auto recorder = Recorder::open(s.options.record_dir, s.options);
    if (!recorder) {
      result.message = recorder.error().message;
      return result;
    }
    s.recorder = std::move(*recorder);
  }
  if (!s.options.start_url.empty()) {
    if (auto loaded = s.tab.navigate(s.options.start_url); !loaded) {
      if (loaded.error().kind == ErrorKind::BrowserExited) {
        result.message = loaded.error().message;
        return s.finish(result, started, 0);
      }
      // The model sees the failure and can navigate elsewhere.
      s.history.push_back({Json{{"navigate", s.options.start_url}}, "", s.options.start_url, loaded.error().message});
    }
  }

  std::string last_signature;
  int repeats = 0;
  std::string last_url = s.options.start_url;  // where a restarted browser goes back to
  for (int step = 1; step <= s.options.max_steps; ++step) {
    if (s.interrupted()) {
      result.outcome = Outcome::Interrupted;
      result.message = "interrupted";
      return s.finish(result, started, step - 1);
    }
    if (s.options.timeout.count() > 0 && since(started) >= s.options.timeout) {
      result.outcome = Outcome::BudgetExhausted;
      result.message = "the time budget of " + std::to_string(s.options.timeout.count() / 1000) + " s ran out";
      return s.finish(result, started, step - 1);
    }
    StepRecord record;
    record.step = step;
    record.max_steps = s.options.max_steps;
    const auto step_start = Clock::now();

    Result<hints::Capture> capture = fail(ErrorKind::Internal, "not captured");
    // A browser or renderer that dies during the capture gets one more recovery.
    for (int attempt = 0; attempt < 2; ++attempt) {
      auto recovered = s.recover(last_url);
      if (!recovered) {
        result.message = recovered.error().message;
        return s.finish(result, started, step - 1);
      }
      if (!recovered->empty()) {
        record.recovered += (record.recovered.empty() ? "" : "; ") + *recovered;
        s.history.push_back({Json(), "", last_url, *recovered});
      }
      capture = hints::capture(s.tab, s.options.capture);
      if (capture || (s.tab.alive() && !s.tab.crashed())) break;
    }
    if (!capture) {
      result.message = "could not capture the page: " + capture.error().message;
      return s.finish(result, started, step - 1);
    }
    const auto page = s.tab.page_info().value_or(browser::PageInfo{});
    record.url = page.url;
    record.title = page.title;
    if (!record.url.empty()) last_url = record.url;
    record.hint_count = capture->map.size();
    record.hints = capture->map.to_json();
    record.timings.capture = since(step_start);
    record.timings.hints = capture->timings.find;
    record.timings.screenshot = capture->timings.screenshot;
    record.timings.draw = capture->timings.draw;
    record.timings.check = capture->timings.check;

    const auto model_start = Clock::now();
    Observation observation{s.options.objective,
                            record.url,
                            record.title,
                            &*capture,
                            s.history,
                            s.open_tabs(),
                            upload_choices(s.options.upload_dir)};
    auto plan = s.planner->next(observation);
    record.timings.model = since(model_start);
    if (plan) {
      record.timings.encode = plan->decision.timings.prepare;
      record.timings.request = plan->decision.timings.model;
    }
    if (!plan) {
      if (s.interrupted()) {
        result.outcome = Outcome::Interrupted;
        result.message = "interrupted";
      } else {
        result.message = "the model could not be used: " + plan.error().message;
      }
      return s.finish(result, started, step - 1);
    }
    record.raw_reply = plan->raw_reply;
    record.request = plan->decision.request_metadata;
    record.repair = std::string(vision::to_string(plan->decision.repair));
    record.action = plan->action;

    auto action = parse_action(plan->action);
    ActResult acted;
    bool skipped = false;
    const bool acts_on_page = action && action->kind != ActionKind::Done && action->kind != ActionKind::Ask;
    if (acts_on_page && s.options.confirm) {
      const Confirmation answer = s.options.confirm(record, plan->action);
      if (answer.verdict == Verdict::Quit) {
        record.ok = false;
        record.result = "the person ended the run at the confirmation prompt";
        if (s.recorder) s.recorder->add_step(record, *capture);
        if (on_step) on_step(record);
        result.outcome = Outcome::Interrupted;
        result.message = "ended at the confirmation prompt";
        return s.finish(result, started, step);
      }
      if (answer.verdict == Verdict::Skip) {
        skipped = true;
        acted = {false, "the person declined this action; choose a different one", std::nullopt};
      } else if (answer.action != plan->action) {
        record.action = answer.action;
        plan->action = answer.action;
        action = parse_action(answer.action);
      }
    }
    const auto act_start = Clock::now();
    if (skipped) {
      // Nothing ran: the page is as the model saw it.
    } else if (!action) {
      acted = failed(action.error());
    } else if (action->kind == ActionKind::Done) {
      acted = {true, "done", std::nullopt};
    } else if (action->kind == ActionKind::Ask) {
      const auto answer = s.ask_person(action->text);
      if (!answer) {
        record.ok = false;
        record.result = "nobody is there to answer the question";
        if (s.recorder) s.recorder->add_step(record, *capture);
        if (on_step) on_step(record);
        result.outcome = Outcome::NeedsInput;
        result.question = action->text;
        result.message = "the model needs an answer: " + action->text;
        return s.finish(result, started, step);
      }
      acted = {true, "the user answered: \"" + *answer + "\"", std::nullopt};
    } else {
      // The same action on an unchanged page: warn the model once, then end the run.
      const std::string signature = to_json(*action).dump() + "@" + record.url + "#" + capture->map.to_text();
      repeats = signature == last_signature ? repeats + 1 : 0;
      last_signature = signature;
      if (repeats >= 3) {
        record.ok = false;
        record.result = "the same action on an unchanged page, again after a warning: the run is stuck";
        if (s.recorder) s.recorder->add_step(record, *capture);
        if (on_step) on_step(record);
        result.outcome = Outcome::Stuck;
        result.message = "stuck: " + describe(*action) + " repeated on an unchanged page";
        return s.finish(result, started, step);
      }
      acted = s.act(*action, *capture);
      if (repeats == 2) {
        acted.message +=
            ". Warning: this is the third time this action was taken on an unchanged page; it is "
            "not working. Try something different, or the run will end";
      }
    }
    record.timings.act = since(act_start);
    const auto settle_start = Clock::now();
    if (acts_on_page && !skipped) {
      // navigate and back waited for their page already. The network-quiet window is left to the next
      // capture, which is taken in it (hints::capture).
      const bool navigated = action->kind == ActionKind::Navigate || action->kind == ActionKind::Back;
      if (auto settled = navigated
                             ? Status(ok())
                             : s.tab.settle(s.options.settle_cap, milliseconds{150}, browser::NetworkWait::LeaveOpen);
          !settled && settled.error().kind == ErrorKind::BrowserExited) {
        acted = failed(settled.error());
      }
      const auto blocked = s.tab.take_blocked();
      for (const auto& refused : blocked) {
        acted.ok = false;
        acted.message += "; navigation to " + refused.url + " was blocked: " + refused.reason;
      }
      if (!blocked.empty()) [[maybe_unused]]
        auto stayed = s.tab.leave_error_page();
      for (const auto& dialog : s.tab.take_dialogs()) {
        acted.message += "; the page showed a " + dialog.type + " dialog: \"" + dialog.message + "\" (dismissed)";
      }
      if (s.tab.alive()) s.report_downloads(acted);
      if (s.tab.crashed()) acted.message += "; the page crashed";
      if (auto now = s.tab.last_url(); !now.empty()) last_url = now;
    }
    record.timings.settle = since(settle_start);
    record.timings.total = since(step_start);
    record.ok = acted.ok;
    record.result = acted.message;
    record.target = acted.target;
    record.usage_so_far = s.planner->usage();
    if (s.recorder) s.recorder->add_step(record, *capture);
    if (on_step) on_step(record);

    if (action && action->kind == ActionKind::Done) {
      result.outcome = Outcome::Done;
      result.answer = action->answer;
      result.message = "done";
      return s.finish(result, started, step);
    }
    s.history.push_back({plan->action, acted.ok ? acted.message : "", record.url, acted.ok ? "" : acted.message});
  }
  result.outcome = Outcome::BudgetExhausted;
  result.message = "the step budget of " + std::to_string(s.options.max_steps) + " steps ran out";
  return s.finish(result, started, s.options.max_steps);
}

}  // namespace vimgpt::agent
