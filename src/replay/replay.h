// Replaying a recorded run without a model: each step's element is found again by the signature recorded
// with it (never by its label, which changes with the page), the model is asked only for a step that no
// longer matches (healing), finished runs are kept in a cache keyed by the task, and a run can be exported
// as a Playwright Test script.
//
//   auto recording = vimgpt::replay::load("runs/20261201-101500");
//   auto planner = std::make_unique<vimgpt::replay::ReplayPlanner>(std::move(*recording), nullptr);
//   vimgpt::agent::Agent agent(options, tab, std::move(planner));  // a run like any other, recorded as one
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "common/result.h"
#include "hints/hints.h"

namespace vimgpt::replay {

using Json = nlohmann::json;

// ---- Recordings read back ---------------------------------------------------------------------------------

struct RecordedStep {
  int step = 0;
  std::string url;  // the page the step was taken on
  std::string title;
  Json action;
  Json signature;           // hints::to_json of the element the action named; null when it names none
  Json signatures;          // one per label the action names (agent::labels_of's order): an array
  std::string page_digest;  // a done step: content_digest of the viewport's text
  std::string result;       // what the step did, as recorded
  std::string takeover;     // a person had the page before or during it (the live view): what they did
  std::string frame;        // the frame the model saw (file name in the record folder), may be empty
  double viewport_width = 0;
  double viewport_height = 0;
  int frame_width = 0;
};

struct Recording {
  std::string dir;
  std::string objective;
  std::string start_url;
  Json answer;
  Json output_schema;  // the JSON Schema the answer had to fit (--output-schema); null: none
  // The steps that did something (a step that failed changed nothing), in order; the last is the done step.
  std::vector<RecordedStep> steps;
  int viewport_width = 0;  // CSS px of the first step's page
  int viewport_height = 0;
};

// DIR/run.json and DIR/steps.jsonl. Refused: a run that did not end done (only a finished task can be
// replayed), and records without signatures (made before replay existed), each with what to do instead.
Result<Recording> load(const std::string& dir);

// ---- Finding an element again -------------------------------------------------------------------------------

// The hint `signature` names on today's page: every identifying fact equal (tag, role, accessible name or
// text, link target, field type, name and placeholder, frame), the one nearest the recorded position when
// several are. NotFound saying what is missing; NotFound too when two candidates are equally near.
Result<const hints::Hint*> find(const hints::HintMap& map, const Json& signature);

// What a recorded step meant, for a model healing it and for people: "click the link \"Reserve this book\"".
std::string intention(const Json& action, const Json& signature);

// ---- Replaying --------------------------------------------------------------------------------------------

// Plans each step from the recording. Before a step, the page must be the recorded one (address and title)
// and its element must be found (find); a done step's answer is reused only when the viewport shows the text
// it was read from. Otherwise `healer` (a model planner; may be null) is asked for that one step, told the
// objective and the recorded intention, and the replay goes on after it; with no healer the run ends
// Diverged, the recorded frame around the target kept beside today's.
class ReplayPlanner final : public agent::Planner {
 public:
  ReplayPlanner(Recording recording, std::unique_ptr<agent::Planner> healer);
  Result<agent::Plan> next(const agent::Observation& observation) override;
  [[nodiscard]] vision::Usage usage() const override;
  [[nodiscard]] std::optional<vision::FittedRequest> fit(const agent::Observation& observation,
                                                         const vision::BudgetLeft& left) const override;
  [[nodiscard]] bool wants_page_text() const override;
  // --verify: the healer's checks (a replayed answer is checked as a fresh one is).
  std::optional<Result<vision::CheckVerdict>> check(const vision::AnswerCheck& check) override;

  // How the steps went: shared, so it can be read after the agent that owns this planner is gone.
  struct Tally {
    int replayed = 0;
    int healed = 0;
  };
  [[nodiscard]] std::shared_ptr<const Tally> tally() const { return tally_; }

 private:
  Recording recording_;
  std::unique_ptr<agent::Planner> healer_;
  std::size_t next_ = 0;
  std::shared_ptr<Tally> tally_ = std::make_shared<Tally>();
};

// ---- The run cache -------------------------------------------------------------------------------------------

// The cache entry a task is kept under: a digest of the objective, the start URL and the viewport.
std::string cache_key(const std::string& objective, const std::string& start_url, int viewport_width,
                      int viewport_height);
// The run kept in DIR/KEY when there is a finished, replayable one.
std::optional<Recording> cached_run(const std::string& cache_dir, const std::string& key);
// Makes the finished run in `record_dir` the entry for `key` (replacing the old one as a whole). A record
// folder inside the cache is moved there; any other is copied.
Status store(const std::string& cache_dir, const std::string& key, const std::string& record_dir);
// A fresh folder inside the cache to record a run into before it is stored.
Result<std::string> staging_dir(const std::string& cache_dir);

// ---- Export -----------------------------------------------------------------------------------------------

// A Playwright Test script (TypeScript) doing the recorded steps with role, text and placeholder locators
// from the signatures, ending with the recorded page's address checked. Secrets are read from the
// environment variables of their names; uploads from VIMGPT_UPLOAD_DIR.
Result<std::string> to_playwright(const Recording& recording);

}  // namespace vimgpt::replay
