// A run's record folder: steps.jsonl (flushed after every step), the frames as sent to the model, run.json,
// and report.html.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "agent/agent.h"

namespace vimgpt::agent {
namespace {

std::string timestamp() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string extension(const browser::Screenshot& shot) {
  return shot.format == ImageFormat::Jpeg ? "jpg" : std::string(to_string(shot.format));
}

bool write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace

Result<std::unique_ptr<Recorder>> Recorder::open(const std::string& dir, const AgentOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return fail(ErrorKind::Io, "--record: cannot create " + dir + ": " + error.message());
  std::FILE* steps = std::fopen((std::filesystem::path(dir) / "steps.jsonl").c_str(), "a");
  if (steps == nullptr) return fail(ErrorKind::Io, "--record: cannot write steps.jsonl in " + dir);
  Json run = {{"objective", options.objective},
              {"start_url", options.start_url},
              {"max_steps", options.max_steps},
              {"started", timestamp()},
              {"hint_mode", hints::to_string(options.capture.mode)}};
  if (options.answer_schema) run["output_schema"] = options.answer_schema->document();  // a replay checks it too
  std::ofstream(std::filesystem::path(dir) / "run.json") << run.dump(2) << "\n";
  return std::unique_ptr<Recorder>(new Recorder(dir, steps, std::move(run)));
}

Recorder::Recorder(std::string dir, std::FILE* steps, Json run)
    : dir_(std::move(dir)), steps_(steps), run_(std::move(run)) {}

Recorder::~Recorder() {
  std::fclose(steps_);
}

void Recorder::add_step(const StepRecord& step, const hints::Capture& capture) {
  char name[32];
  std::snprintf(name, sizeof name, "step-%03d", step.step);
  std::vector<std::string> frames;
  const std::string labelled = std::string(name) + "." + extension(capture.labelled);
  // A step taken with no frame (an MCP client's first open) has none to keep.
  if (!capture.labelled.bytes.empty() && write_file(std::filesystem::path(dir_) / labelled, capture.labelled.bytes)) {
    frames.push_back(labelled);
  }
  if (capture.clean) {
    const std::string clean = std::string(name) + "-clean." + extension(*capture.clean);
    if (write_file(std::filesystem::path(dir_) / clean, capture.clean->bytes)) frames.push_back(clean);
  }
  Json line = {{"step", step.step},
               {"time", timestamp()},
               {"url", step.url},
               {"title", step.title},
               {"frames", frames},
               {"frame_size", {capture.labelled.width, capture.labelled.height}},
               {"viewport", {capture.map.viewport_width(), capture.map.viewport_height()}},
               {"hint_count", step.hint_count},
               {"hints", step.hints},
               {"request", step.request},
               {"raw_reply", step.raw_reply},
               {"repair", step.repair},
               {"action", step.action},
               {"ok", step.ok},
               {"result", step.result},
               {"timings_ms",
                {{"capture", step.timings.capture.count()},
                 {"hints", step.timings.hints.count()},
                 {"screenshot", step.timings.screenshot.count()},
                 {"draw", step.timings.draw.count()},
                 {"check", step.timings.check.count()},
                 {"model", step.timings.model.count()},
                 {"encode", step.timings.encode.count()},
                 {"request", step.timings.request.count()},
                 {"act", step.timings.act.count()},
                 {"settle", step.timings.settle.count()},
                 {"total", step.timings.total.count()}}},
               {"usage", vision::to_json(step.usage)},
               {"usage_so_far", vision::to_json(step.usage_so_far)}};
  if (step.bound) line["bound"] = vision::to_json(*step.bound);
  if (!step.recovered.empty()) line["recovered"] = step.recovered;
  if (!step.consent.empty()) line["consent"] = step.consent;
  if (step.last_action_changed_nothing) line["last_action_changed_nothing"] = true;
  if (!step.takeover.is_null()) line["takeover"] = step.takeover;
  if (!step.check.is_null()) line["check"] = step.check;
  if (!step.signature.is_null()) line["signature"] = step.signature;
  if (!step.signatures.is_null()) line["signatures"] = step.signatures;
  if (!step.page_digest.empty()) line["page_digest"] = step.page_digest;
  if (!step.replay.is_null()) line["replay"] = step.replay;
  // A replay that diverged here: the recorded frame around the target, shown beside today's in the report.
  if (step.recorded_view) {
    const std::string recorded = std::string(name) + "-recorded." + extension(*step.recorded_view);
    if (write_file(std::filesystem::path(dir_) / recorded, step.recorded_view->bytes))
      line["replay"]["recorded_frame"] = recorded;
  }
  // Taken in the network-quiet window, the page changed meanwhile, so taken again (hints::capture).
  if (capture.retaken) line["capture_retaken"] = true;
  if (step.target) {
    line["target"] = {
        {"x", step.target->x}, {"y", step.target->y}, {"width", step.target->width}, {"height", step.target->height}};
  }
  // One line, written and flushed before the next step starts: a crash keeps every finished step.
  const std::string text = line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), steps_);
  std::fflush(steps_);
}

void Recorder::finish(const RunResult& result) {
  run_["finished"] = timestamp();
  run_["outcome"] = to_string(result.outcome);
  run_["answer"] = result.answer;
  if (!result.question.empty()) run_["question"] = result.question;
  run_["message"] = result.message;
  run_["steps"] = result.steps;
  run_["elapsed_ms"] = result.elapsed.count();
  run_["usage"] = vision::to_json(result.usage);
  std::ofstream(std::filesystem::path(dir_) / "run.json")
      << run_.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  [[maybe_unused]] auto written = write_report(dir_);
}

void record_signatures(StepRecord& record, const Action& action, const hints::HintMap& map) {
  Json signatures = Json::array();
  for (const std::string* label : labels_of(action)) {
    const auto* hint = map.find(*label);
    signatures.push_back(hint != nullptr ? hints::to_json(*hint) : Json());
  }
  if (!signatures.empty()) record.signature = signatures[0];
  if (signatures.size() > 1) record.signatures = std::move(signatures);
}

const hints::Hint* hint_at_point(const Action& action, const hints::HintMap& map, int frame_width) {
  const bool at_point = action.kind == ActionKind::ClickAt ||
                        ((action.kind == ActionKind::Hover || action.kind == ActionKind::DoubleClick ||
                          action.kind == ActionKind::TripleClick || action.kind == ActionKind::RightClick) &&
                         action.label.empty());
  if (!at_point || frame_width <= 0 || map.viewport_width() <= 0) return nullptr;
  // Hint rectangles are in viewport CSS pixels; the point is in the frame's.
  const double scale = map.viewport_width() / frame_width;
  return map.at(action.x * scale, action.y * scale);
}

void record_point_signature(StepRecord& record, const Action& action, const hints::HintMap& map, int frame_width) {
  if (!record.signature.is_null()) return;
  if (const auto* under = hint_at_point(action, map, frame_width)) record.signature = hints::to_json(*under);
}

}  // namespace vimgpt::agent
