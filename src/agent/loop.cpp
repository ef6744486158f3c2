// The step loop: capture (hints drawn) → plan → act → settle → record → repeat, within the budgets.
#include <functional>
#include <vector>

#include "agent/agent.h"
#include "agent/progress_watch.h"
#include "common/text.h"
#include "common/url.h"

namespace vimgpt::agent {
namespace {

using Clock = std::chrono::steady_clock;

constexpr milliseconds kConsentCap{5000};  // the longest a capture waits for autoconsent to finish answering

milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
}

}  // namespace

struct Agent::Impl {
  Impl(AgentOptions agent_options, browser::Tab& working_tab, std::unique_ptr<Planner> step_planner)
      : options(std::move(agent_options)), tab(working_tab), planner(std::move(step_planner)), actor(tab, options) {}

  AgentOptions options;
  browser::Tab& tab;
  std::unique_ptr<Planner> planner;
  Actor actor;
  std::unique_ptr<Recorder> recorder;
  std::vector<vision::HistoryEntry> history;
  int restarts = 0;
  Clock::time_point started_at;
  std::string last_url;    // where a restarted browser goes back to
  ProgressWatch progress;  // loop detection
  // The history entry of the last action that acted on the page and said it did: told, once the next page is seen,
  // when it changed nothing there.
  std::optional<std::size_t> last_acted_entry;
  std::optional<browser::Screenshot> closer_look;  // what the last step's zoom captured, for the next request
  int answers_sent_back = 0;                       // --output-schema
  int checks_sent_back = 0;                        // --verify
  // --confirm-risky: the start page's site and every site the person let the run go to.
  std::vector<std::string> task_hosts{url_host(options.start_url)};

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

  // The open tabs for the prompt, when there is more than one (asking costs nothing when there is one).
  std::vector<vision::TabEntry> open_tabs() {
    std::vector<vision::TabEntry> listed;
    if (tab.page_count() < 2) return listed;
    auto pages = tab.pages();
    if (!pages) return listed;
    for (const auto& page : *pages) listed.push_back({page.number, page.title, url_host(page.url), page.current});
    return listed;
  }

  bool interrupted() const { return options.interrupted != nullptr && options.interrupted->load(); }

  RunResult end(Outcome outcome, std::string message, int steps, Json answer = {}, std::string question = {}) {
    RunResult result;
    result.outcome = outcome;
    result.message = std::move(message);
    result.answer = std::move(answer);
    result.question = std::move(question);
    result.steps = steps;
    result.usage = planner->usage();
    result.elapsed = since(started_at);
    if (recorder) {
      result.record_dir = recorder->dir();
      recorder->finish(result);
    }
    if (options.overseer != nullptr) options.overseer->on_end(result);
    return result;
  }

  void publish(const StepRecord& record, const hints::Capture& capture, const StepCallback& on_step) {
    if (recorder) recorder->add_step(record, capture);
    if (options.overseer != nullptr) options.overseer->on_step(record, capture);
    if (on_step) on_step(record);
  }

  // The time budget's end, when there is one: a wait for the person ends there too.
  [[nodiscard]] std::optional<Clock::time_point> deadline() const {
    if (options.timeout.count() <= 0) return std::nullopt;
    return started_at + options.timeout;
  }

  // A wait for the person that ended without them: Ctrl-C, or the time budget.
  RunResult end_of_wait(const Error& why, int steps) {
    if (why.kind == ErrorKind::Timeout) {
      return end(Outcome::BudgetExhausted,
                 "the time budget of " + std::to_string(options.timeout.count() / 1000) +
                     " s ran out while the run waited for the person",
                 steps);
    }
    return end(Outcome::Interrupted, "interrupted", steps);
  }

  // The page is the person's again after `takeover`: the next prompt says what they did (never what they typed).
  void note_takeover(StepRecord& record, const Takeover& takeover) {
    record.takeover = to_json(takeover);
    if (!takeover.url.empty()) last_url = takeover.url;
  }

  // Before a step: the person's pause, when they asked for one. The run's end when the wait ended it.
  std::optional<RunResult> pause_point(StepRecord& record) {
    if (options.overseer == nullptr) return std::nullopt;
    auto paused = options.overseer->checkpoint(deadline());
    if (!paused) return end_of_wait(paused.error(), record.step - 1);
    if (*paused) {
      note_takeover(record, **paused);
      history.push_back({Json(), describe(**paused), (*paused)->url, "", ""});
    }
    return std::nullopt;
  }

  // --confirm and --confirm-risky, and a provider's safety checks: asked in the live view when one watches the run
  // (its answer box, the page the person's meanwhile), else where options.confirm (or confirm_provider_checks) asks
  // (the terminal). An answer that is none of those it reads is asked again. An error when the wait ended the run.
  Result<Confirmation> confirm(StepRecord& record, const Json& proposed, const std::string& risk) {
    if (options.overseer == nullptr) {
      return (options.confirm ? options.confirm : options.confirm_provider_checks)(record, proposed, risk);
    }
    const std::string question = "Step " + std::to_string(record.step) + " proposes " + proposed.dump() +
                                 (risk.empty() ? std::string() : ": ask first, " + risk) +
                                 ". Answer yes to let it run, no to skip it (the model is told), quit to end the "
                                 "run, or the action to run instead as JSON.";
    std::string asked = question;
    while (true) {
      VIMGPT_TRY(Takeover takeover, options.overseer->hand_over(ActionKind::Ask, asked, deadline()));
      note_takeover(record, takeover);
      if (auto answer = read_confirmation(takeover.answer, proposed)) return *answer;
      asked = "\"" + takeover.answer + "\" is not an answer to this. " + question;
    }
  }

  // A step that ends the run: recorded as failed with `why`, then the run's end.
  RunResult end_at(StepRecord& record, const hints::Capture& capture, const StepCallback& on_step, std::string why,
                   Outcome outcome, std::string message, std::string question = {}) {
    record.ok = false;
    record.result = std::move(why);
    publish(record, capture, on_step);
    return end(outcome, std::move(message), record.step, {}, std::move(question));
  }

  // The recorder, and the start page (a failure to load it is the model's to see, unless the browser died).
  std::optional<RunResult> begin() {
    started_at = Clock::now();
    last_url = options.start_url;
    if (!options.record_dir.empty()) {
      auto opened = Recorder::open(options.record_dir, options);
      if (!opened) {
        RunResult result;
        result.message = opened.error().message;
        return result;
      }
      recorder = std::move(*opened);
    }
    answer_consent_dialogs_from_now_on();
    if (options.start_url.empty()) return std::nullopt;
    // The network-quiet window after the load is the first capture's, taken in it.
    if (auto loaded = tab.navigate(options.start_url, browser::SettleWait::LeaveOpen); !loaded) {
      if (loaded.error().kind == ErrorKind::BrowserExited) return end(Outcome::Error, loaded.error().message, 0);
      history.push_back({Json{{"navigate", options.start_url}}, "", options.start_url, loaded.error().message, ""});
    }
    // The start page's own HTTP authentication, told as an action's would be.
    std::string asked;
    for (const auto& challenge : tab.take_auth_challenges()) asked += (asked.empty() ? "" : "; ") + describe(challenge);
    if (!asked.empty()) history.push_back({Json{{"navigate", options.start_url}}, asked, options.start_url, "", ""});
    return std::nullopt;
  }

  // Ctrl-C and the time budget, checked before each step.
  std::optional<RunResult> out_of_budget(int step) {
    if (interrupted()) return end(Outcome::Interrupted, "interrupted", step - 1);
    if (options.timeout.count() > 0 && since(started_at) >= options.timeout) {
      return end(Outcome::BudgetExhausted,
                 "the time budget of " + std::to_string(options.timeout.count() / 1000) + " s ran out", step - 1);
    }
    return std::nullopt;
  }

  // --consent: autoconsent in every document loaded from now on. A build without it runs on (the CLI said so once).
  void answer_consent_dialogs_from_now_on() { (void)consent::install(tab, options.consent); }

  // The page with its hints, once autoconsent has answered a consent dialog it found there (at most kConsentCap: a
  // platform's own way out takes a few hundred milliseconds, its settings path a few seconds). A browser or renderer
  // that dies during the capture gets one more recovery.
  Result<hints::Capture> capture_with_recovery(StepRecord& record) {
    Result<hints::Capture> capture = fail(ErrorKind::Internal, "not captured");
    for (int attempt = 0; attempt < 2; ++attempt) {
      VIMGPT_TRY(std::string recovered, recover(last_url));
      if (!recovered.empty()) {
        record.recovered += (record.recovered.empty() ? "" : "; ") + recovered;
        history.push_back({Json(), "", last_url, recovered, ""});
      }
      answer_consent_dialogs_from_now_on();  // a browser started again has none of the last one's scripts
      for (auto& said : consent::settle(tab, kConsentCap)) {
        history.push_back({Json(), said, last_url, "", ""});
        record.consent.push_back(std::move(said));
      }
      capture = hints::capture(tab, options.capture);
      if (capture || (tab.alive() && !tab.crashed())) break;
    }
    if (!capture) return fail(capture.error().kind, "could not capture the page: " + capture.error().message);
    return capture;
  }

  void note_page(StepRecord& record, const hints::Capture& capture, Clock::time_point step_start) {
    auto page = tab.page_info().value_or(browser::PageInfo{});
    if (const auto* pdf = actor.shown_pdf()) {  // the PDF's own address, not the document it is shown in
      page.url = pdf->url;
      page.title = pdf->title + " (" + Actor::pdf_note(*pdf) + ")";
    }
    record.url = page.url;
    record.title = page.title;
    if (!record.url.empty()) last_url = record.url;
    record.hint_count = capture.map.size();
    record.hints = capture.map.to_json();
    record.timings.capture = since(step_start);
    record.timings.hints = capture.timings.find;
    record.timings.screenshot = capture.timings.screenshot;
    record.timings.draw = capture.timings.draw;
    record.timings.check = capture.timings.check;
  }

  Observation observe(const StepRecord& record, const hints::Capture& capture) {
    Observation observation{options.objective,
                            record.url,
                            record.title,
                            &capture,
                            history,
                            open_tabs(),
                            upload_choices(options.upload_dir),
                            {},
                            {},
                            0,
                            std::exchange(closer_look, std::nullopt)};
    // A PDF's text is sent with its frame whatever --observe says: what it says is what it is for.
    const auto* pdf = actor.shown_pdf();
    if (pdf != nullptr) observation.page_note = Actor::pdf_note(*pdf) + "; {\"page\": N} turns to page N";
    if (planner->wants_page_text() || pdf != nullptr) {
      auto text = hints::visible_text(tab, kPageTextLimit);
      observation.page_text = text ? *text : "(the page's text could not be read: " + text.error().message + ")";
    }
    return observation;
  }

  // --max-cost and --max-tokens-total: why the next request may not be sent, or nothing when it may (with the reply
  // cap they leave it set on the observation).
  std::optional<std::string> over_budget(Observation& observation, StepRecord& record) const {
    if (options.max_cost_usd <= 0 && options.max_tokens_total <= 0) return std::nullopt;
    const vision::Usage spent = planner->usage();
    vision::BudgetLeft left;
    if (options.max_cost_usd > 0) left.usd = options.max_cost_usd - spent.cost_usd;
    if (options.max_tokens_total > 0) left.tokens = options.max_tokens_total - spent.total_tokens();
    const auto fitted = planner->fit(observation, left);
    if (!fitted) return std::nullopt;
    record.bound = fitted->bound;
    if (fitted->max_tokens >= 0) {
      observation.max_tokens = fitted->max_tokens;
      return std::nullopt;
    }
    const vision::Usage& next = fitted->bound;
    char text[200];
    if (left.usd && next.cost_usd > *left.usd) {
      std::snprintf(text, sizeof text,
                    "the cost budget of $%.4f: $%.4f spent, and the next request could cost up to $%.4f",
                    options.max_cost_usd, spent.cost_usd, next.cost_usd);
    } else {
      std::snprintf(text, sizeof text,
                    "the token budget of %lld: %lld spent, and the next request could take up to %lld",
                    static_cast<long long>(options.max_tokens_total), static_cast<long long>(spent.total_tokens()),
                    static_cast<long long>(next.total_tokens()));
    }
    return std::string(text);
  }

  Result<Plan> plan(StepRecord& record, const Observation& observation) {
    const auto model_start = Clock::now();
    auto planned = planner->next(observation);
    record.timings.model = since(model_start);
    if (!planned) return planned;
    record.timings.encode = planned->decision.timings.prepare;
    record.timings.request = planned->decision.timings.model;
    record.raw_reply = planned->raw_reply;
    record.request = planned->decision.request_metadata;
    record.usage = planned->decision.usage;
    record.repair = std::string(vision::to_string(planned->decision.repair));
    record.action = planned->action;
    record.replay = planned->replay;
    record.recorded_view = planned->recorded_view;
    return planned;
  }

  // A click on what does nothing reads "clicked button 'Save'": what the last action left is said beside it when the
  // page it left is the one it was taken on (its address, its elements, what they hold, where it is scrolled), for
  // the model's next look and in this step's record.
  void tell_if_unchanged(StepRecord& record, const hints::Capture& capture) {
    if (!last_acted_entry) return;
    const std::size_t entry = *last_acted_entry;
    last_acted_entry.reset();
    if (entry >= history.size() || !progress.unchanged_since_last_action(record.url, capture.map)) return;
    history[entry].result += "; the page did not change";
    record.last_action_changed_nothing = true;
  }

  // What a replay needs to find this step again: the element the action names, and for an answer, the text
  // it was read from.
  void note_target(StepRecord& record, const Action& action, const hints::Capture& capture,
                   const Observation& observation) {
    record_signatures(record, action, capture.map);
    record_point_signature(record, action, capture.map, capture.labelled.width);
    if (ends_done(action)) {
      const std::string text = !observation.page_text.empty() ? observation.page_text
                                                              : hints::visible_text(tab, kPageTextLimit).value_or("");
      record.page_digest = content_digest(text);
    }
  }

  // --output-schema: nothing when `answer` fits (a string holding JSON becomes that JSON), else what the
  // validator says is wrong.
  std::optional<std::string> misfit(Json& answer) const {
    if (!options.answer_schema) return std::nullopt;
    if (answer.is_string()) {
      Json inner = Json::parse(answer.get<std::string>(), nullptr, false);
      if (!inner.is_discarded()) answer = std::move(inner);
    }
    const auto problems = options.answer_schema->problems(answer);
    if (problems.empty()) return std::nullopt;
    std::string why = "the answer does not fit the output schema:";
    for (const auto& problem : problems) why += " " + problem + (problem.ends_with('.') ? "" : ";");
    if (why.ends_with(';')) why.back() = '.';
    return why;
  }

  // {"ask"} and {"handoff"}: to the live view when one is open, else the terminal; what came of it for the model,
  // or nothing when nobody is there (the run then ends NeedsInput). An error when the wait ended the run.
  Result<std::optional<std::string>> hand_over(StepRecord& record, const Action& action) {
    const bool ask = action.kind == ActionKind::Ask;
    if (options.overseer != nullptr) {
      VIMGPT_TRY(Takeover takeover, options.overseer->hand_over(action.kind, action.text, deadline()));
      note_takeover(record, takeover);
      if (ask && !takeover.answer.empty())
        return "the user answered: \"" + takeover.answer + "\"; " + describe(takeover);
      return describe(takeover);
    }
    const AskPerson& person = ask ? options.ask : options.hand_off;
    const auto answer = person ? person(action.text) : std::nullopt;
    if (!answer) return std::optional<std::string>();
    if (ask) return "the user answered: \"" + *answer + "\"";
    return "the person handed the page back" + (answer->empty() ? std::string() : ", saying: \"" + *answer + "\"");
  }

  // --verify: the answer checked against the objective, the steps taken and this frame. Passed: Done. Failed: the
  // reason goes back to the model (`answer` kept by the caller only when the run ends), at most kCheckRetries times;
  // then Unverified, as when the check cannot be made at all.
  Outcome check_answer(StepRecord& record, const hints::Capture& capture, std::optional<Json>& answer,
                       ActResult& acted) {
    auto checked = planner->check({options.objective, *answer, history, record.url, capture.labelled, {}});
    if (!checked) return Outcome::Done;  // this planner does not check answers
    if (!*checked) {
      record.check = {{"error", checked->error().message}};
      acted.message = "the answer could not be checked: " + checked->error().message;
      return Outcome::Unverified;
    }
    const vision::CheckVerdict& verdict = **checked;
    record.check = {{"passed", verdict.passed}, {"reason", verdict.reason}};
    if (verdict.passed) return Outcome::Done;
    acted.ok = false;
    if (checks_sent_back < kCheckRetries) {
      ++checks_sent_back;
      acted.message = "a check of the answer found it wrong: " + verdict.reason +
                      " Go on with the task and reply done again with a corrected answer (" +
                      std::to_string(checks_sent_back) + " of " + std::to_string(kCheckRetries) + " tries).";
      answer.reset();
      return Outcome::Done;
    }
    acted.message =
        "the answer did not pass the check after " + std::to_string(kCheckRetries) + " tries: " + verdict.reason;
    return Outcome::Unverified;
  }

  // One step; the run's end when it ends the run.
  std::optional<RunResult> step(int number, const StepCallback& on_step) {
    if (auto ended = out_of_budget(number)) return ended;
    StepRecord record;
    record.step = number;
    record.max_steps = options.max_steps;
    if (auto ended = pause_point(record)) return ended;
    const auto step_start = Clock::now();
    auto capture = capture_with_recovery(record);
    if (!capture) return end(Outcome::Error, capture.error().message, number - 1);
    note_page(record, *capture, step_start);
    tell_if_unchanged(record, *capture);
    Observation observation = observe(record, *capture);
    if (auto passed = over_budget(observation, record)) {
      return end(Outcome::BudgetExhausted, "stopped before passing " + *passed, number - 1);
    }
    auto planned = plan(record, observation);
    if (!planned) {
      if (interrupted()) return end(Outcome::Interrupted, "interrupted", number - 1);
      // A request the budgets capped, whose reply that cap starved: what was left of them is spent. (A model that
      // declines is ErrorKind::Refused: an error, whatever the budgets.)
      if (planned.error().kind == ErrorKind::BudgetSpent) {
        return end(Outcome::BudgetExhausted, "stopped at the budget: " + planned.error().message, number - 1);
      }
      return end(Outcome::Error, "the model could not be used: " + planned.error().message, number - 1);
    }
    if (planned->diverged) {
      return end_at(record, *capture, on_step, *planned->diverged, Outcome::Diverged,
                    "the replay diverged at step " + std::to_string(number) + ": " + *planned->diverged);
    }

    auto action = parse_action(planned->action, options.max_actions);
    const auto act_start = Clock::now();
    ActResult acted;
    bool acted_on_page = false;
    auto risk = action && options.confirm_only_risky
                    ? risk_of(*action, capture->map, capture->labelled.width, task_hosts)
                    : std::optional<Risk>();
    // What the provider asks a person to acknowledge before the action runs (OpenAI's computer tool's safety checks)
    // is asked whatever --confirm says; with nobody to ask, the run ends needing input, never acknowledged for them.
    const bool provider_asks = action && !planned->decision.safety_checks.empty();
    if (provider_asks) {
      std::string checks;
      for (const auto& check : planned->decision.safety_checks) checks += (checks.empty() ? "" : "; ") + check;
      const std::string asked = "the model's provider asks a person to confirm it: " + checks;
      // Both asked in one question; a yes still lets the run on to the site the action goes to.
      risk = risk ? Risk{risk->why + ", and " + asked, risk->host} : Risk{asked, std::string()};
    }
    // What only a person may let run (a provider's check, a risky action under --confirm-risky): with nobody to ask
    // (a batch or MCP without a live view), the run ends needing input, the question saying what and why.
    const bool person_asked = provider_asks || (options.confirm_only_risky && risk);
    if (person_asked && !options.confirm && !options.confirm_provider_checks && options.overseer == nullptr) {
      return end_at(record, *capture, on_step, "nobody is there to confirm the action", Outcome::NeedsInput,
                    "a person's yes is needed: " + risk->why,
                    "confirm this action (" + planned->action.dump() + "): " + risk->why);
    }
    if (action && action->kind != ActionKind::Done && action->kind != ActionKind::Ask &&
        action->kind != ActionKind::Handoff && (person_asked || (options.confirm && !options.confirm_only_risky))) {
      auto confirmed = confirm(record, planned->action, risk ? risk->why : std::string());
      if (!confirmed) return end_of_wait(confirmed.error(), number - 1);
      const Confirmation& answer = *confirmed;
      if (answer.verdict == Verdict::Run && risk && !risk->host.empty()) task_hosts.push_back(risk->host);
      if (answer.verdict == Verdict::Quit) {
        return end_at(record, *capture, on_step, "the person ended the run at the confirmation prompt",
                      Outcome::Interrupted, "ended at the confirmation prompt");
      }
      if (answer.verdict == Verdict::Skip) {
        acted = {false, "the person declined this action; choose a different one", std::nullopt};
        action = fail(ErrorKind::Cancelled, acted.message);  // nothing runs: the page is as the model saw it
      } else if (answer.action != planned->action) {
        record.action = planned->action = answer.action;
        action = parse_action(answer.action, options.max_actions);
      }
    }
    if (action) note_target(record, *action, *capture, observation);
    if (!action) {
      if (action.error().kind != ErrorKind::Cancelled) acted = {false, action.error().message, std::nullopt};
    } else if (action->kind == ActionKind::Done) {
      acted = {true, "done", std::nullopt};
    } else if (action->kind == ActionKind::Ask || action->kind == ActionKind::Handoff) {
      auto handed = hand_over(record, *action);
      if (!handed) return end_of_wait(handed.error(), number - 1);
      if (!*handed) {
        const bool ask = action->kind == ActionKind::Ask;
        return end_at(record, *capture, on_step,
                      ask ? "nobody is there to answer the question" : "nobody is there to hand the page to",
                      Outcome::NeedsInput,
                      (ask ? "the model needs an answer: " : "the model needs a person on the page: ") + action->text,
                      action->text);
      }
      acted = {true, **handed, std::nullopt};
    } else {
      const auto verdict = progress.note(*action, record.url, capture->map);
      if (!verdict.stuck.empty()) {
        return end_at(record, *capture, on_step, verdict.stuck + ", again after a warning: the run is stuck",
                      Outcome::Stuck, verdict.stuck);
      }
      acted = actor.act(*action, *capture);
      closer_look = std::move(acted.closer_look);
      if (!verdict.warning.empty()) acted.message += ". " + verdict.warning;
      acted_on_page = true;
    }
    record.timings.act = since(act_start);
    const auto settle_start = Clock::now();
    if (acted_on_page) {
      actor.after(*action, acted);
      actor.keep_tabs_within_limit(acted);
      if (auto now = tab.last_url(); !now.empty()) last_url = now;
    }
    record.timings.settle = since(settle_start);
    // A list that ends with done ends the run once every action of it was done.
    std::optional<Json> answer;
    if (action && action->kind == ActionKind::Done) {
      answer = action->answer;
    } else if (action && acted.ok && ends_done(*action)) {
      answer = action->actions.back().answer;
    }
    Outcome ending = Outcome::Done;
    if (answer) {
      if (auto why = misfit(*answer)) {
        acted.ok = false;
        if (answers_sent_back < kAnswerRetries) {
          ++answers_sent_back;
          acted.message = (action->kind == ActionKind::Actions ? acted.message + "; but " : std::string()) + *why +
                          " Reply done again with an answer that fits it (" + std::to_string(answers_sent_back) +
                          " of " + std::to_string(kAnswerRetries) + " tries).";
          answer.reset();
        } else {
          acted.message = *why;
          ending = Outcome::AnswerInvalid;
        }
      }
    }
    if (answer && ending == Outcome::Done) ending = check_answer(record, *capture, answer, acted);
    record.timings.total = since(step_start);
    record.ok = acted.ok;
    record.result = acted.message;
    record.target = acted.target;
    record.usage_so_far = planner->usage();
    publish(record, *capture, on_step);

    if (answer) {
      if (ending == Outcome::AnswerInvalid) {
        return end(ending,
                   "the answer did not fit the output schema after " + std::to_string(kAnswerRetries) +
                       " tries: " + acted.message,
                   number, std::move(*answer));
      }
      if (ending == Outcome::Unverified) return end(ending, acted.message, number, std::move(*answer));
      return end(Outcome::Done, "done", number, std::move(*answer));
    }
    if (acted_on_page && acted.ok) last_acted_entry = history.size();
    history.push_back({planned->action, acted.ok ? acted.message : "", record.url, acted.ok ? "" : acted.message,
                       planned->raw_reply});
    return std::nullopt;
  }
};

Agent::Agent(AgentOptions options, browser::Tab& tab, std::unique_ptr<Planner> planner)
    : impl_(std::make_unique<Impl>(std::move(options), tab, std::move(planner))) {}

Agent::~Agent() = default;

RunResult Agent::run(const StepCallback& on_step) {
  Impl& s = *impl_;
  if (auto ended = s.begin()) return *ended;
  for (int step = 1; step <= s.options.max_steps; ++step) {
    if (auto ended = s.step(step, on_step)) return *ended;
  }
  return s.end(Outcome::BudgetExhausted, "the step budget of " + std::to_string(s.options.max_steps) + " steps ran out",
               s.options.max_steps);
}

}  // namespace vimgpt::agent
