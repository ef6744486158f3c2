// A run as the live view sees it, on the run's own thread: each step shown, and the pauses in which the page is the
// person's. Their input reaches the tab from this thread, between steps, so the tab is never driven from two.
#include <algorithm>
#include <map>

#include "common/text.h"
#include "live/hub.h"

namespace vimgpt::live {
namespace {

using Clock = std::chrono::steady_clock;
// Ctrl-C sets a flag from a signal handler, which cannot wake a condition variable: a wait looks at it this often.
constexpr std::chrono::milliseconds kInterruptPoll{200};
// After each click or key of the person's: a navigation it began is waited for, as after an action, so their next
// input lands on the page they will see.
constexpr std::chrono::milliseconds kSettleCap{5000};
constexpr std::chrono::milliseconds kSettleQuiet{50};

// What the person did, counted: what they typed is never kept.
struct Tally {
  int clicks = 0;
  int characters = 0;
  int wheel_turns = 0;
  std::map<std::string, int> keys;  // "Enter", "Control+A"

  [[nodiscard]] std::string text() const {
    std::vector<std::string> parts;
    const auto count = [&](int n, const char* one, const char* many) {
      if (n > 0) parts.push_back(std::to_string(n) + " " + (n == 1 ? one : many));
    };
    count(clicks, "click", "clicks");
    count(characters, "character typed", "characters typed");
    std::string pressed;
    for (const auto& [key, times] : keys) {
      pressed += (pressed.empty() ? "" : ", ") + key + (times > 1 ? " x" + std::to_string(times) : "");
    }
    if (!pressed.empty()) parts.push_back(pressed + " pressed");
    count(wheel_turns, "wheel turn", "wheel turns");
    std::string joined;
    for (const auto& part : parts) joined += (joined.empty() ? "" : ", ") + part;
    return joined;
  }
};

// One of the person's inputs, as trusted input: a point is a fraction of the image they clicked, scaled to the
// viewport.
Status apply(browser::Tab& tab, const PersonInput& input, Tally& tally) {
  const auto& viewport = tab.viewport();
  const browser::Point at{input.x * viewport.width, input.y * viewport.height};
  switch (input.kind) {
    case PersonInput::Kind::Click:
      VIMGPT_TRY_VOID(tab.click(at, input.button, input.clicks));
      tally.clicks += input.clicks;
      return tab.settle(kSettleCap, kSettleQuiet);
    case PersonInput::Kind::Wheel:
      VIMGPT_TRY_VOID(tab.wheel(at, input.dx, input.dy));
      ++tally.wheel_turns;
      return ok();
    case PersonInput::Kind::Text:
      if (input.text.empty()) return ok();
      // A character the person typed is a key press, as theirs was; a paste is put in at once, as a paste is.
      VIMGPT_TRY_VOID(
          tab.type_text(input.text, utf8_length(input.text) == 1 ? browser::Typing::Keys : browser::Typing::Insert));
      tally.characters += static_cast<int>(utf8_length(input.text));
      return ok();
    case PersonInput::Kind::Key: {
      VIMGPT_TRY(const browser::KeyPress keys, browser::parse_keys(input.keys));
      VIMGPT_TRY_VOID(tab.press(keys));
      ++tally.keys[browser::to_string(keys)];
      return tab.settle(kSettleCap, kSettleQuiet);
    }
  }
  return fail(ErrorKind::Internal, "an input of no known kind");
}

}  // namespace

Watch::Watch(std::shared_ptr<Server::Hub> hub, int id, browser::Tab& tab, const std::atomic<bool>* interrupted)
    : hub_(std::move(hub)), id_(id), tab_(tab), interrupted_(interrupted) {}

Watch::~Watch() {
  std::scoped_lock lock(hub_->mutex);
  auto& run = *hub_->runs.at(id_);
  if (run.tab != nullptr) run.tab->stop_screencast();
  run.tab = nullptr;
  if (run.state != "ended") {
    run.state = "ended";
    hub_->announce(run);
  }
  hub_->prune();
}

void Watch::on_step(const agent::StepRecord& step, const hints::Capture& capture) {
  Json line = {{"step", step.step},
               {"action", step.action},
               {"ok", step.ok},
               {"result", step.result},
               {"url", step.url},
               {"title", step.title},
               {"tokens", step.usage.total_tokens()},
               {"ms", step.timings.total.count()},
               {"model_ms", step.timings.model.count()}};
  if (step.usage.cost_known) line["cost"] = step.usage.cost_usd;
  if (step.usage_so_far.cost_known) line["run_cost"] = step.usage_so_far.cost_usd;
  line["run_tokens"] = step.usage_so_far.total_tokens();
  if (!step.takeover.is_null()) line["takeover"] = step.takeover.value("description", "");
  if (!step.recovered.empty()) line["recovered"] = step.recovered;
  const auto frame = capture.labelled.bytes.empty() ? nullptr : frame_message('M', id_, capture.labelled);
  {
    std::scoped_lock lock(hub_->mutex);
    auto& run = *hub_->runs.at(id_);
    run.steps.push_back(line);
    if (run.steps.size() > kMaxSteps) run.steps.pop_front();
    if (frame) run.model_frame = frame;
  }
  hub_->broadcast(text_message(Json{{"type", "step"}, {"run", id_}, {"step", line}}));
  if (frame) hub_->broadcast({true, frame});
}

namespace {

// Waits, the page the person's, until they resume; carries out their input meanwhile. Lock held on entry and exit.
Result<agent::Takeover> wait_for_person(std::unique_lock<std::mutex>& lock, Server::Hub& hub, RunState& run,
                                        browser::Tab& tab, const std::atomic<bool>* interrupted,
                                        std::optional<Clock::time_point> deadline) {
  const auto began = Clock::now();
  Tally tally;
  for (;;) {
    while (!run.inputs.empty()) {
      const PersonInput input = std::move(run.inputs.front());
      run.inputs.pop_front();
      lock.unlock();
      const auto applied = apply(tab, input, tally);
      if (!applied) {
        hub.broadcast(text_message(Json{{"type", "error"}, {"run", run.id}, {"message", applied.error().message}}));
      }
      lock.lock();
    }
    if (run.resume_asked) break;
    if (interrupted != nullptr && interrupted->load()) return fail(ErrorKind::Cancelled, "interrupted");
    const auto now = Clock::now();
    if (deadline && now >= *deadline) return fail(ErrorKind::Timeout, "the time budget ran out");
    auto until = now + kInterruptPoll;
    if (deadline) until = std::min(until, *deadline);
    run.changed.wait_until(lock, until);
  }
  agent::Takeover takeover;
  takeover.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began);
  takeover.did = tally.text();
  takeover.answer = std::exchange(run.answer, {});
  run.resume_asked = run.pause_asked = run.taken_over = false;
  run.waiting_for.clear();
  run.message.clear();
  run.state = "running";
  hub.announce(run);
  lock.unlock();
  if (auto page = tab.page_info()) {
    takeover.url = page->url;
    takeover.title = page->title;
  }
  lock.lock();
  return takeover;
}

}  // namespace

Result<std::optional<agent::Takeover>> Watch::checkpoint(std::optional<Clock::time_point> deadline) {
  std::unique_lock lock(hub_->mutex);
  auto& run = *hub_->runs.at(id_);
  if (!run.pause_asked) return std::optional<agent::Takeover>();
  run.state = "paused";
  hub_->announce(run);
  VIMGPT_TRY(agent::Takeover takeover, wait_for_person(lock, *hub_, run, tab_, interrupted_, deadline));
  return std::optional<agent::Takeover>(std::move(takeover));
}

Result<agent::Takeover> Watch::hand_over(agent::ActionKind kind, const std::string& message,
                                         std::optional<Clock::time_point> deadline) {
  std::unique_lock lock(hub_->mutex);
  auto& run = *hub_->runs.at(id_);
  run.state = "waiting";
  run.waiting_for = std::string(agent::to_string(kind));
  run.message = message;
  hub_->announce(run);
  return wait_for_person(lock, *hub_, run, tab_, interrupted_, deadline);
}

// The tile shows the outcome; it is marked ended when the Watch goes (an MCP session's tile lives on for its next
// calls).
void Watch::on_end(const agent::RunResult& result) {
  std::scoped_lock lock(hub_->mutex);
  auto& run = *hub_->runs.at(id_);
  run.outcome = {
      {"outcome", agent::to_string(result.outcome)}, {"message", result.message},
      {"answer", agent::answer_text(result.answer)}, {"steps", result.steps},
      {"tokens", result.usage.total_tokens()},       {"seconds", static_cast<double>(result.elapsed.count()) / 1000.0}};
  if (result.usage.cost_known) run.outcome["cost"] = result.usage.cost_usd;
  hub_->announce(run);
}

}  // namespace vimgpt::live
