// The agent: the step loop (capture with hints → model → act → settle → record), the action vocabulary,
// budgets, the stuck detector, and recorded runs a person can step through.
//
//   vimgpt::agent::AgentOptions options;
//   options.objective = "find the opening hours";
//   auto tab = vimgpt::browser::Tab::launch({});
//   auto model = vimgpt::vision::Client::create(model_options);
//   vimgpt::agent::Agent agent(options, **tab, std::make_unique<vimgpt::agent::ModelPlanner>(**model, settings));
//   auto outcome = agent.run([](const vimgpt::agent::StepRecord& step) { /* progress */ });
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "browser/browser.h"
#include "common/fence.h"
#include "common/json_schema.h"
#include "common/result.h"
#include "consent/consent.h"
#include "hints/hints.h"
#include "vision/vision.h"

namespace vimgpt::agent {

using Json = nlohmann::json;
using std::chrono::milliseconds;

// ---- Actions ----------------------------------------------------------------------------------------------

enum class ActionKind {
  Done,
  ClickType,
  Navigate,
  Type,
  Click,
  Select,
  Upload,
  SwitchTab,
  CloseTab,
  Ask,
  Handoff,  // the page is the person's until they hand it back (a login, a 2FA code, a CAPTCHA)
  ClickAt,
  Scroll,
  Back,
  Key,
  Wait,
  Hover,
  DoubleClick,
  TripleClick,  // a line or a paragraph selected (a computer tool's triple click)
  RightClick,
  Drag,
  SelectText,
  Actions,  // several actions in one reply, done in order
  Dialog,   // how the page's dialogs opened during the next action are answered
  Page,     // a page of the PDF the tab shows
  Zoom,     // a closer look at a region (a provider's computer tool asks it): the page is not touched
};
std::string_view to_string(ActionKind kind);

// Whether Enter follows typed text: the seed's Enter, held back while the form has other empty fields.
enum class Enter { Auto, Press, Skip };

struct Action {
  ActionKind kind = ActionKind::Done;
  // Click, ClickType, Select, Upload, Hover, DoubleClick, RightClick, Drag (from a label; empty: from x, y)
  std::string label;
  // Type, ClickType (may hold <secret:NAME> placeholders), Navigate (the URL), Key (a combination, "Control+A"),
  // Select option, Upload file name, Ask question, Handoff message, SelectText words, Dialog a prompt's answer
  std::string text;
  bool accept = false;        // Dialog
  Enter enter = Enter::Auto;  // Type, ClickType
  int tab = 0;                // SwitchTab, from 1
  int page = 0;               // Page, from 1
  Json answer;                // Done
  browser::ScrollDirection direction = browser::ScrollDirection::Down;
  double seconds = 0;  // Wait
  double x = 0;  // ClickAt, Drag from a point, Scroll at a point, Zoom's top left: in pixels of the frame the model saw
  double y = 0;
  // ClickAt, DoubleClick, TripleClick, RightClick, Drag's start: where the pointer rests now, the last point a mouse
  // action went to ("pointer" in JSON: an open family's click or drag that names no point, as its own harness does).
  bool at_pointer = false;
  bool in_point = false;  // Scroll: the wheel turned at (x, y), scrolling what is under it ("in": [x, y] in JSON)
  std::string in;         // Scroll, SelectText: the label of the element to scroll or to look in; empty: the page
  std::string to_label;   // Drag to an element; empty: to (to_x, to_y), pixels of the frame (Zoom's bottom right)
  double to_x = 0;
  double to_y = 0;
  std::vector<Action> actions;  // Actions
  // Actions: what a list held past its limit (--max-actions), not done; the result says so, and the model sends them
  // again next step.
  std::vector<Json> over_limit;
};

inline constexpr std::size_t kMaxTypedText = 4096;
// {"actions": [...]}: at most this many in one reply unless the run says otherwise (--max-actions).
inline constexpr std::size_t kDefaultMaxActions = 5;

// The seed's contract: several keys in one reply are taken in the order done, click+type, navigate, type,
// click; extensions come after. "done" with any value ends the run ({"done": null}, true, "the answer"),
// except "done": false beside another action (a structured reply's "not done yet"). Refused URLs
// (javascript:, file:, chrome:, data:, ...), unknown keys to press, over-long text and empty objects are
// errors the model sees on its next step.
Result<Action> parse_action(const Json& reply, std::size_t max_actions = kDefaultMaxActions);
// The labels an action names, in order (its own, "in", "to"; an actions list's, one after the other): what a
// recording keeps a signature of for each, and what a replay fills in again.
std::vector<std::string*> labels_of(Action& action);
std::vector<const std::string*> labels_of(const Action& action);
// Done, or an actions list whose last action is done: the run ends when it was carried out.
bool ends_done(const Action& action);
// "navigate example.com" → "https://example.com"; only http and https are allowed.
Result<std::string> normalize_url(std::string_view url);
Json to_json(const Action& action);
// The first <secret:NAME> placeholder of typed text from `from` on: where it starts, where its '>' is, and NAME;
// nothing when there is none (an unclosed "<secret:" is text).
struct SecretPlaceholder {
  std::size_t at = 0;
  std::size_t end = 0;
  std::string name;
};
std::optional<SecretPlaceholder> next_secret_placeholder(const std::string& text, std::size_t from = 0);
// A done answer as text: a string as it is, null as "", anything else as its JSON.
std::string answer_text(const Json& answer);
std::string describe(const Action& action);

// ---- Policy: where the agent may go ----------------------------------------------------------------------

// --allow-domain / --block-domain. "example.com" names that host; "*.example.com" names it and every
// subdomain. Block wins over allow; with any allow pattern, every other host is refused. Only http and https.
class NavigationPolicy {
 public:
  static Result<NavigationPolicy> create(std::vector<std::string> allow, std::vector<std::string> block);
  // Why `url` may not load, or nothing when it may.
  [[nodiscard]] std::optional<std::string> refusal(const std::string& url) const;
  [[nodiscard]] bool restricts() const { return !allow_.empty() || !block_.empty(); }
  // The allowed patterns, comma-separated ("example.com, *.example.org").
  [[nodiscard]] std::string allowed_text() const;

 private:
  std::vector<std::string> allow_;
  std::vector<std::string> block_;
};

// --confirm-risky: what makes an action worth a person's yes before it runs. An action is risky when it would take the
// run off the task's sites (a navigation, or a click on a link, to a host that is none of `task_hosts` and none's
// subdomain or parent), type a secret, or give the page a file; a list is as risky as its first risky action.
struct Risk {
  std::string why;   // "it leaves the task's sites for shop.example", "it types the secret PW", ...
  std::string host;  // the site it would go to; empty when it stays
};
// `frame_width`: the frame a point action's point is in (0: no point action is judged by what it lands on).
std::optional<Risk> risk_of(const Action& action, const hints::HintMap& map, int frame_width,
                            const std::vector<std::string>& task_hosts);

// A site's HTTP authentication challenge and what it got, in words for the model (never the credentials).
std::string describe(const browser::AuthChallenge& challenge);

// ---- Planning: where the next action comes from -----------------------------------------------------------

struct Observation {
  std::string objective;
  std::string url;
  std::string title;
  const hints::Capture* capture = nullptr;
  std::vector<vision::HistoryEntry> history;
  std::vector<vision::TabEntry> tabs;     // listed only when more than one is open
  std::vector<std::string> upload_files;  // names of the files in the upload folder
  std::string page_text;                  // the viewport's text, when the planner wants it (--observe text)
  std::string page_note;                  // vision::StepRequest::page_note
  int max_tokens = 0;                     // the reply cap the budgets leave (vision::Client::fit); 0: the model's
  std::optional<browser::Screenshot> closer_look;  // the region the last action (zoom) asked to see closer
};

struct Plan {
  Json action;
  std::string raw_reply;
  vision::Decision decision;  // empty for scripted plans
  // A replayed run (src/replay): how this step was found again, recorded with it ({"mark": "replayed",
  // "step": N} or "healed"/"diverged" with why); null otherwise.
  Json replay;
  // The replay cannot go on here (why): the run ends Diverged with this step recorded, beside
  // `recorded_view`, the recorded frame around the step's target.
  std::optional<std::string> diverged;
  std::optional<browser::Screenshot> recorded_view;
};

class Planner {
 public:
  virtual ~Planner() = default;
  virtual Result<Plan> next(const Observation& observation) = 0;
  [[nodiscard]] virtual vision::Usage usage() const { return {}; }
  // The next plan's request fitted to what is left of the budgets (vision::Client::fit); nothing when it costs nothing.
  [[nodiscard]] virtual std::optional<vision::FittedRequest> fit(const Observation&, const vision::BudgetLeft&) const {
    return std::nullopt;
  }
  [[nodiscard]] virtual bool wants_page_text() const { return false; }
  // --verify: the answer checked by a request of its own (its usage counted in usage()); nothing when this planner
  // does not check answers.
  virtual std::optional<Result<vision::CheckVerdict>> check(const vision::AnswerCheck& /*check*/) {
    return std::nullopt;
  }
};

// What the model is given: the labelled frame; or the frame and the hint list; or, for text-only models,
// the hint list and the viewport's text without any image.
enum class Observe { Vision, Hybrid, Text };
Result<Observe> parse_observe(std::string_view name);

struct PlannerSettings {
  Observe observe = Observe::Vision;
  // --frames: the model sees this step's frame and up to frames - 1 earlier steps' (the original sends one).
  int frames = 1;
  std::vector<std::string> secret_names;
  std::map<std::string, std::string> secret_hosts;  // NAME → the hosts a bound secret is for, as the prompt says them
  std::size_t max_actions = kDefaultMaxActions;     // what the prompt says an actions list may hold
  Json answer_schema;                               // --output-schema, for the prompt and structured output; null: none
};

// Asks a vision model.
class ModelPlanner final : public Planner {
 public:
  // `checker`: the client --verify's checks go to (the same client, or one for another model); null: none.
  ModelPlanner(vision::Client& client, PlannerSettings settings, vision::Client* checker = nullptr);
  Result<Plan> next(const Observation& observation) override;
  [[nodiscard]] vision::Usage usage() const override;
  [[nodiscard]] std::optional<vision::FittedRequest> fit(const Observation& observation,
                                                         const vision::BudgetLeft& left) const override;
  [[nodiscard]] bool wants_page_text() const override { return settings_.observe == Observe::Text; }
  std::optional<Result<vision::CheckVerdict>> check(const vision::AnswerCheck& check) override;

 private:
  [[nodiscard]] vision::StepRequest request_for(const Observation& observation) const;

  vision::Client& client_;
  PlannerSettings settings_;
  vision::Client* checker_ = nullptr;
  DataFence fence_;                                   // the run's page-data fence, drawn when the run starts
  std::vector<vision::EncodedImage> earlier_frames_;  // the last frames - 1 labelled frames sent, oldest first
};

// Replays a script (--actions): deterministic automation with no model.
class ScriptedPlanner final : public Planner {
 public:
  explicit ScriptedPlanner(std::vector<Json> actions);
  // A JSON array, or JSON Lines (one action object per line).
  static Result<std::unique_ptr<ScriptedPlanner>> from_file(const std::string& path);
  Result<Plan> next(const Observation& observation) override;

 private:
  std::vector<Json> actions_;
  std::size_t next_ = 0;
};

// ---- The run ----------------------------------------------------------------------------------------------

// AnswerInvalid: the answer still did not fit --output-schema after it was sent back kAnswerRetries times.
// Unverified: --verify's check still failed the answer after it was sent back kCheckRetries times, or could not be
// made; the answer is kept.
enum class Outcome {
  Done,
  Error,
  BudgetExhausted,
  Stuck,
  NeedsInput,
  Interrupted,
  Diverged,
  AnswerInvalid,
  Unverified
};
std::string_view to_string(Outcome outcome);  // "done", "error", "budget exhausted", "stuck", "needs_input", ...
// 0 done, 1 error, 2 budget, 3 stuck, 4 needs input, 5 diverged (a replay that could not go on), 6 answer
// invalid, 7 unverified, 130 interrupted
int exit_code(Outcome outcome);

struct StepTimings {
  milliseconds capture{0};     // hints + screenshot + draw + check, and reading the page's URL and title
  milliseconds hints{0};       // finding and labelling
  milliseconds screenshot{0};  // Chromium rendering and encoding the frame
  milliseconds draw{0};        // markers in and out of the page, or onto the frame
  milliseconds check{0};       // whether a capture in the network-quiet window still holds
  milliseconds model{0};       // encode + request + parse
  milliseconds encode{0};      // scaling, encoding and building the request
  milliseconds request{0};     // waiting for the provider (retries and repair calls included)
  milliseconds act{0};
  milliseconds settle{0};
  milliseconds total{0};
};

struct StepRecord {
  int step = 0;
  int max_steps = 0;
  std::string url;
  std::string title;
  std::size_t hint_count = 0;
  Json action;  // as parsed (secrets still as placeholders)
  std::string raw_reply;
  bool ok = true;
  std::string result;  // what happened, or why not
  StepTimings timings;
  vision::Usage usage;         // this step's model calls
  vision::Usage usage_so_far;  // the run's, this step included
  // --max-cost / --max-tokens-total: the most this step's request could take, as the budgets checked it (its prompt
  // tokens and its reply cap; the cost at the uncached price)
  std::optional<vision::Usage> bound;
  std::vector<std::string> frames;  // file names inside the record folder
  Json hints;                       // the hint map as JSON (recorded)
  Json request;                     // request metadata (never the key)
  std::string repair;
  std::optional<hints::Rect> target;  // the element acted on, for drawing it in the report
  std::string recovered;              // before this step: how a crashed page or a dead browser was brought back
  std::vector<std::string> consent;   // before this step's capture: the cookie-consent dialogs answered (consent.h)
  bool last_action_changed_nothing = false;  // this step's page is the one the last step's action was taken on
  // What a replay finds the step's element by (hints::to_json of the labelled hint), when the action names one.
  Json signature;
  // When it names several (a drag to an element, a scroll in one, an actions list): one per label, in
  // labels_of's order (the first is `signature`). Null otherwise.
  Json signatures;
  // A done step: content_digest of the viewport's text, so a replay reuses the answer only on the same text.
  std::string page_digest;
  Json replay;                                       // Plan::replay
  std::optional<browser::Screenshot> recorded_view;  // Plan::recorded_view
  // A person had the page before this step (they paused the run), or during it (a handoff or an ask answered in
  // the live view): to_json(Takeover). Null otherwise.
  Json takeover;
  // --verify: the check of this step's answer ({"passed": bool, "reason": "..."}, or {"error": "..."} when it could
  // not be made). Null otherwise.
  Json check;
};

// How much of the viewport's text is read: --observe text's (about 2,000 tokens at most), and the text a done
// step's page_digest is taken of.
inline constexpr std::size_t kPageTextLimit = 8000;

struct RunResult {
  Outcome outcome = Outcome::Error;
  Json answer;           // Done: the model's answer to the user
  std::string question;  // NeedsInput: what the model asked that nobody was there to answer
  std::string message;   // why the run ended
  int steps = 0;
  vision::Usage usage;
  milliseconds elapsed{0};
  std::string record_dir;
};

// --confirm: the person sees each action before it runs and lets it run, changes it, skips it or ends the run;
// --confirm-risky: only the actions risk_of names, with its words (`risk`; empty for --confirm).
enum class Verdict { Run, Skip, Quit };
struct Confirmation {
  Verdict verdict = Verdict::Run;
  Json action;  // Run: the action to carry out (as proposed, or as the person edited it)
};
using ConfirmAction = std::function<Confirmation(const StepRecord& step, const Json& action, const std::string& risk)>;
// A person's answer to a confirmation, wherever it was asked: yes (or nothing), no, quit, or the action as a JSON
// object to run instead; nullopt when it is none of these.
std::optional<Confirmation> read_confirmation(std::string_view answer, const Json& proposed);

// {"ask": QUESTION}: the person's answer, or nothing when nobody can answer (the run then ends with
// Outcome::NeedsInput and the question).
using AskPerson = std::function<std::optional<std::string>(const std::string& question)>;

// ---- A person beside the run (the live view, src/live) ----------------------------------------------------

// What a person did while the page was theirs: for the model's next prompt and the record. What they typed is
// never in it (a password stays theirs), only how many keys.
struct Takeover {
  milliseconds duration{0};
  std::string did;     // "2 clicks, 8 characters typed, Enter pressed", or "nothing on the page"
  std::string answer;  // their answer to an {"ask"}; empty when they gave none
  std::string url;     // the page they handed back
  std::string title;
};
Json to_json(const Takeover& takeover);
// For the model: "the person took over for 40 s (2 clicks, 8 characters typed); the page is now TITLE (URL)".
std::string describe(const Takeover& takeover);

// A person watching the run who may pause it between steps, act on the page themselves and hand it back. Its
// calls run on the run's thread, so what the person does reaches the tab from there, between steps.
class Overseer {
 public:
  virtual ~Overseer() = default;
  // Each step as published, with the capture the model was sent.
  virtual void on_step(const StepRecord& step, const hints::Capture& capture) = 0;
  // Before each step: nothing unless the person asked to pause; then the run waits here, the page theirs, until
  // they resume. Cancelled when the run is interrupted meanwhile, Timeout at `deadline`.
  virtual Result<std::optional<Takeover>> checkpoint(std::optional<std::chrono::steady_clock::time_point> deadline) = 0;
  // {"handoff"} and {"ask"}: the run waits, paused with `message` shown, until the person resumes (for an ask,
  // with their answer). Errors as checkpoint's.
  virtual Result<Takeover> hand_over(ActionKind kind, const std::string& message,
                                     std::optional<std::chrono::steady_clock::time_point> deadline) = 0;
  // The run is over.
  virtual void on_end(const RunResult& result) = 0;
};

struct AgentOptions {
  std::string objective;
  consent::Mode consent = consent::Mode::Reject;  // --consent: cookie-consent dialogs answered before each capture
  std::string start_url = "https://www.google.com";
  int max_steps = 30;
  milliseconds timeout{0};  // 0: none
  milliseconds settle_cap{3000};
  hints::CaptureOptions capture;
  std::string record_dir;                      // empty: no recording
  std::map<std::string, std::string> secrets;  // NAME → value, substituted only at typing time
  // NAME → the hosts a secret may be typed on (--secret NAME@HOST=VALUE): typed into a page of another host, the
  // step is refused and nothing is typed. A secret not here may be typed anywhere.
  std::map<std::string, NavigationPolicy> secret_sites;
  const std::atomic<bool>* interrupted = nullptr;  // set by Ctrl-C
  int max_restarts = 2;                            // a local browser that dies is started again this many times per run
  // Tabs kept open at most: past it, the oldest one not worked in is closed (a long run that opens tabs would
  // otherwise keep a renderer for each, and list them all in every prompt). 0: no limit.
  int max_tabs = 8;
  ConfirmAction confirm;            // empty: actions run without asking
  bool confirm_only_risky = false;  // --confirm-risky: confirm is asked only what risk_of names
  // Who answers what the model's provider asks a person to confirm (OpenAI's computer tool's safety checks) when
  // `confirm` is empty and no live view watches; empty too: nobody (the run ends NeedsInput).
  ConfirmAction confirm_provider_checks;
  AskPerson ask;  // empty: nobody to ask ({"ask"} ends the run: NeedsInput)
  // {"handoff"} without a live view: the person does what it says in the browser's own window, then answers
  // (a headed run on a terminal). Empty: nobody can ({"handoff"} ends the run: NeedsInput).
  AskPerson hand_off;
  // The live view: pauses, takeovers and handoffs go through it, and it is shown every step. Not owned.
  Overseer* overseer = nullptr;
  // {"upload"} may give the page files from this folder only (by name, never by content to the model);
  // empty: uploads are refused.
  std::string upload_dir;
  // The run ends (BudgetExhausted) before a model request that could take it past either: what was spent,
  // plus the planner's upper-bound estimate of the request. 0: no limit.
  double max_cost_usd = 0;
  std::int64_t max_tokens_total = 0;
  std::size_t max_actions = kDefaultMaxActions;  // {"actions": [...]}: a longer list is an error the model reads
  // --output-schema: done's answer must fit it (a string holding JSON is read as that JSON). One that does not
  // is sent back with the validator's words kAnswerRetries times; then the run ends AnswerInvalid.
  std::optional<JsonSchema> answer_schema;
};
inline constexpr int kAnswerRetries = 2;
// --verify: a failed check goes back to the model with its reason this many times; then the run ends Unverified.
inline constexpr int kCheckRetries = 2;

// The files {"upload": LABEL, "file": NAME} may name: the regular files directly in `dir`, sorted.
std::vector<std::string> upload_choices(const std::string& dir);
// The path `name` means inside `dir`; Refused when it leaves the folder (.., an absolute path, a link out of
// it), when there is no upload folder, or when it is not a regular file there.
Result<std::string> upload_path(const std::string& dir, const std::string& name);

class Agent {
 public:
  Agent(AgentOptions options, browser::Tab& tab, std::unique_ptr<Planner> planner);
  ~Agent();
  using StepCallback = std::function<void(const StepRecord&)>;
  RunResult run(const StepCallback& on_step = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- Acting on the page --------------------------------------------------------------------------------

// What an action did, for the model and the record.
struct ActResult {
  ActResult() = default;
  ActResult(bool ok_, std::string message_, std::optional<hints::Rect> target_)
      : ok(ok_), message(std::move(message_)), target(target_) {}
  bool ok = true;
  std::string message;
  std::optional<hints::Rect> target;               // the element acted on, circled in the report
  std::optional<browser::Screenshot> closer_look;  // Zoom: the region, shown to the model in place of the next frame
};

// Carries out one action on the tab as a person would (a click at a visible point, typing with the Enter a
// person would press, a drop-down's option, a file chooser answered) and notes what the page did after it. The
// loop uses it for each step, the MCP server for each tool call: both mean the same by an action.
class Actor {
 public:
  Actor(browser::Tab& tab, const AgentOptions& options);

  // Every action but done and ask, which are the loop's.
  ActResult act(const Action& action, const hints::Capture& capture);
  // After an action: wait until the page settles (navigate and back waited already), then add to `acted` what
  // the browser reported meanwhile.
  void after(const Action& action, ActResult& acted);
  // Keeps at most --max-tabs tabs open, after each action of the loop and of the MCP server's acting tools: the
  // oldest ones not worked in are closed (each switched to, closed, and the work goes back to the tab it was in), and
  // `acted` says which went.
  void keep_tabs_within_limit(ActResult& acted);

  // A PDF the browser saved (a link to one, or a download), shown in the tab as pages (src/pdf) while the tab stays
  // on it: a longer one kPagesShown pages at a time, {"page": N} turning to any.
  struct ShownPdf {
    std::string url;    // where it came from
    std::string file;   // where the browser saved it
    std::string title;  // its own, or its file name
    int pages = 0;      // in the whole PDF
    int first = 0;      // the pages the tab shows
    int last = 0;
    std::uint64_t generation = 0;  // the tab's page_generation() once shown
  };
  // The PDF the tab shows; nothing once the tab went to another page.
  [[nodiscard]] const ShownPdf* shown_pdf() const;
  // "a PDF: pages 1-20 of 37 shown", for the model.
  static std::string pdf_note(const ShownPdf& pdf);

 private:
  // An action that could not be done, and why (actor.cpp, typing.cpp).
  static ActResult failed(const Error& error) { return {false, error.message, std::nullopt}; }
  ActResult click(const hints::HintMap& map, const std::string& label, hints::Effect* effect = nullptr);
  ActResult select(const hints::HintMap& map, const std::string& label, const std::string& option);
  ActResult type_into_focus(const std::string& text, Enter enter);
  std::optional<std::string> secret_refusal(const std::string& text);
  static ActResult typed_result(const hints::KeysTarget& target, const hints::TypingEffect& effect,
                                const std::string& message);
  ActResult wait(const Action& action);
  ActResult zoom(const Action& action, const hints::Capture& capture);
  ActResult drag(const Action& action, const hints::Capture& capture);
  ActResult act_all(const Action& list, const hints::Capture& capture);
  [[nodiscard]] Result<browser::Point> frame_point(double x, double y, const hints::Capture& capture) const;
  // A point action's point in viewport CSS px: the frame's (x, y), or where the pointer rests.
  [[nodiscard]] Result<browser::Point> action_point(const Action& action, const hints::Capture& capture) const;
  ActResult scroll(const Action& action, const hints::Capture& capture);
  void report_downloads(ActResult& acted);
  std::string open_pdf(const browser::Download& download);
  Result<std::string> show_pdf(ShownPdf pdf, int page);
  ActResult turn_to_page(int page);
  static std::string pages_shown(const ShownPdf& pdf);
  void report_dialogs(ActResult& acted);
  [[nodiscard]] bool interrupted() const;

  browser::Tab& tab_;
  const AgentOptions& options_;
  bool dialog_answer_held_ = false;  // a {"dialog"} answer stands for the next action
  std::optional<ShownPdf> pdf_;
  // Where the last mouse action left the pointer (viewport CSS px), as a person's mouse stays where it was put;
  // nothing before the first.
  std::optional<browser::Point> pointer_;
};

// ---- Recordings -------------------------------------------------------------------------------------------

// A record folder written as it goes: steps.jsonl (a line per step, flushed), the frames as sent, run.json and
// report.html. The loop records its steps; the MCP server records each acting tool call as a step.
class Recorder {
 public:
  static Result<std::unique_ptr<Recorder>> open(const std::string& dir, const AgentOptions& options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void add_step(const StepRecord& step, const hints::Capture& capture);
  void finish(const RunResult& result);
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  Recorder(std::string dir, std::FILE* steps, Json run);
  std::string dir_;
  std::FILE* steps_;
  Json run_;
};

// What a replay finds the step's elements by: the signature of each label `action` names (StepRecord::signature,
// and StepRecord::signatures when it names several).
void record_signatures(StepRecord& record, const Action& action, const hints::HintMap& map);
// A point action (an open family's click_at, or a hover, double or right click at a point) that lands on a
// labelled element: that element's signature, as a labelled action's, so the run cache and replay know what was
// clicked. `frame_width` is the frame's the point is in. Nothing when no element is under it.
void record_point_signature(StepRecord& record, const Action& action, const hints::HintMap& map, int frame_width);
// The labelled element under a point action (a click, double or right click, hover at a point of a frame
// `frame_width` pixels wide), or nullptr: what the point means, for the record and for --confirm-risky.
const hints::Hint* hint_at_point(const Action& action, const hints::HintMap& map, int frame_width);

// Rebuilds report.html from steps.jsonl (a torn last line, from a crash, is skipped).
Status write_report(const std::string& record_dir);

}  // namespace vimgpt::agent
