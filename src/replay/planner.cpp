// The replay planner: each recorded step again, on the element its signature finds, with the model asked only
// where the page no longer matches.
#include <algorithm>
#include <filesystem>

#include "common/pixels.h"
#include "common/text.h"
#include "replay/replay.h"

namespace vimgpt::replay {
namespace {

bool is_done(const RecordedStep& step) {
  auto action = agent::parse_action(step.action);
  return action && agent::ends_done(*action);
}

// A point of the recorded frame in today's frame's pixels.
void scale_points(agent::Action& action, double scale) {
  for (auto& one : action.actions) scale_points(one, scale);
  action.x *= scale;
  action.y *= scale;
  action.to_x *= scale;
  action.to_y *= scale;
}

// CSS px around the target kept in the recorded view of a diverged step: enough of its neighbours to
// recognise the place.
constexpr double kViewMarginX = 240;
constexpr double kViewMarginY = 120;

// The recorded frame around the step's target (all of it when the step named no element), for the report.
std::optional<browser::Screenshot> recorded_view(const Recording& recording, const RecordedStep& step) {
  if (step.frame.empty()) return std::nullopt;
  // The frame's format and size are read from its header; its pixels are decoded only to cut it.
  auto whole = vision::load_image_file((std::filesystem::path(recording.dir) / step.frame).string());
  if (!whole) return std::nullopt;
  const Json rect = step.signature.is_object() ? step.signature.value("rect", Json()) : Json();
  if (!rect.is_object() || step.viewport_width <= 0) return *whole;
  auto pixels = decode_pixels(whole->bytes);
  if (!pixels) return *whole;
  const double scale = pixels->width / step.viewport_width;
  const auto clamp = [](double value, int limit) { return std::clamp(static_cast<int>(value), 0, limit); };
  const int left = clamp((rect.value("x", 0.0) - kViewMarginX) * scale, pixels->width);
  const int top = clamp((rect.value("y", 0.0) - kViewMarginY) * scale, pixels->height);
  const int right = clamp((rect.value("x", 0.0) + rect.value("width", 0.0) + kViewMarginX) * scale, pixels->width);
  const int bottom = clamp((rect.value("y", 0.0) + rect.value("height", 0.0) + kViewMarginY) * scale, pixels->height);
  if (right <= left || bottom <= top) return *whole;
  Pixels crop;
  crop.width = right - left;
  crop.height = bottom - top;
  crop.channels = pixels->channels;
  const auto channels = static_cast<std::size_t>(pixels->channels);
  const auto row = static_cast<std::size_t>(crop.width) * channels;
  const auto source_row = static_cast<std::size_t>(pixels->width) * channels;
  crop.data.resize(row * static_cast<std::size_t>(crop.height));
  const std::uint8_t* from =
      pixels->data.data() + static_cast<std::size_t>(top) * source_row + static_cast<std::size_t>(left) * channels;
  for (std::size_t y = 0; y < static_cast<std::size_t>(crop.height); ++y) {
    std::copy_n(from + y * source_row, row, crop.data.data() + y * row);
  }
  auto png = encode_png(crop);
  if (!png) return *whole;
  return browser::Screenshot{std::move(*png), ImageFormat::Png, crop.width, crop.height};
}

// The recorded action made to act on today's page: the label its signature finds now, a point scaled to
// today's frame. The error says why the step cannot be replayed as recorded.
Result<Json> replayable_action(const RecordedStep& recorded, const agent::Observation& observation) {
  if (observation.url != recorded.url || observation.title != recorded.title) {
    return fail(ErrorKind::NotFound, "the page is not the one recorded: \"" + observation.title + "\" at " +
                                         observation.url + " instead of \"" + recorded.title + "\" at " + recorded.url);
  }
  VIMGPT_TRY(agent::Action action, agent::parse_action(recorded.action));
  const auto labels = agent::labels_of(action);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (observation.capture == nullptr) return fail(ErrorKind::Internal, "a replayed step needs the page's hints");
    VIMGPT_TRY(const hints::Hint* hint, find(observation.capture->map, recorded.signatures.at(i)));
    *labels[i] = hint->label;
  }
  if (recorded.frame_width > 0 && observation.capture != nullptr && observation.capture->labelled.width > 0) {
    scale_points(action, static_cast<double>(observation.capture->labelled.width) / recorded.frame_width);
  }
  if (agent::ends_done(action) && content_digest(observation.page_text) != recorded.page_digest) {
    return fail(ErrorKind::NotFound, "the page does not show the text the answer was read from");
  }
  return agent::to_json(action);
}

std::string healing_objective(const std::string& objective, const RecordedStep& recorded, const std::string& why) {
  return objective + "\n\n(This task is being replayed from a recording. Its step " + std::to_string(recorded.step) +
         " no longer fits the page: " + why +
         ". The recorded step was: " + intention(recorded.action, recorded.signature) +
         ". Reply with the one action that does what that step meant, on the page as it is now.)";
}

}  // namespace

ReplayPlanner::ReplayPlanner(Recording recording, std::unique_ptr<agent::Planner> healer)
    : recording_(std::move(recording)), healer_(std::move(healer)) {}

Result<agent::Plan> ReplayPlanner::next(const agent::Observation& observation) {
  if (next_ >= recording_.steps.size()) {
    // Healed steps that did not finish the task: the record has nothing more to offer.
    agent::Plan plan;
    plan.action = Json::object();
    plan.diverged = "every recorded step was taken and the task is not done";
    return plan;
  }
  const RecordedStep& recorded = recording_.steps[next_++];
  auto action = replayable_action(recorded, observation);
  if (action) {
    ++tally_->replayed;
    agent::Plan plan;
    plan.action = std::move(*action);
    plan.replay = {{"mark", "replayed"}, {"step", recorded.step}};
    return plan;
  }
  const std::string why = action.error().message;
  const Json note = {
      {"step", recorded.step}, {"why", why}, {"intention", intention(recorded.action, recorded.signature)}};
  if (healer_) {
    agent::Observation asked = observation;
    asked.objective = healing_objective(observation.objective, recorded, why);
    VIMGPT_TRY(agent::Plan plan, healer_->next(asked));
    ++tally_->healed;
    plan.replay = note;
    plan.replay["mark"] = "healed";
    return plan;
  }
  agent::Plan plan;
  plan.action = recorded.action;
  plan.replay = note;
  plan.replay["mark"] = "diverged";
  plan.diverged = why + "; no model was given to heal the step (configure one, or run the task afresh)";
  plan.recorded_view = recorded_view(recording_, recorded);
  return plan;
}

vision::Usage ReplayPlanner::usage() const {
  return healer_ ? healer_->usage() : vision::Usage{};
}

std::optional<vision::FittedRequest> ReplayPlanner::fit(const agent::Observation& observation,
                                                        const vision::BudgetLeft& left) const {
  if (!healer_ || next_ >= recording_.steps.size()) return std::nullopt;
  const RecordedStep& recorded = recording_.steps[next_];
  auto action = replayable_action(recorded, observation);
  if (action) return std::nullopt;  // replaying costs nothing
  agent::Observation asked = observation;
  asked.objective = healing_objective(observation.objective, recorded, action.error().message);
  return healer_->fit(asked, left);
}

std::optional<Result<vision::CheckVerdict>> ReplayPlanner::check(const vision::AnswerCheck& check) {
  return healer_ ? healer_->check(check) : std::nullopt;
}

bool ReplayPlanner::wants_page_text() const {
  return (next_ < recording_.steps.size() && is_done(recording_.steps[next_])) ||
         (healer_ && healer_->wants_page_text());
}

}  // namespace vimgpt::replay
