// Where actions come from: a vision model, or a script of actions replayed without one.
#include <sstream>

#include "agent/agent.h"
#include "common/fence.h"
#include "common/file.h"

namespace vimgpt::agent {

ModelPlanner::ModelPlanner(vision::Client& client, PlannerSettings settings, vision::Client* checker)
    : client_(client), settings_(std::move(settings)), checker_(checker), fence_(DataFence::drawn()) {}

vision::StepRequest ModelPlanner::request_for(const Observation& observation) const {
  vision::StepRequest request;
  request.objective = observation.objective;
  request.history = observation.history;
  request.current_url = observation.url;
  request.current_title = observation.title;
  request.page_note = observation.page_note;
  request.secret_names = settings_.secret_names;
  request.secret_hosts = settings_.secret_hosts;
  request.tabs = observation.tabs;
  request.upload_files = observation.upload_files;
  request.max_actions = static_cast<int>(settings_.max_actions);
  request.answer_schema = settings_.answer_schema;
  request.page_text = observation.page_text;
  request.data_fence = fence_.marker();
  request.max_tokens = observation.max_tokens;
  if (observation.capture == nullptr) return request;
  if (settings_.observe != Observe::Vision) request.hint_text = observation.capture->map.to_text(observation.url);
  if (settings_.observe == Observe::Text) return request;
  // A frame is already an encoded image with its format and size: it goes to the model as it is.
  request.images = earlier_frames_;
  request.earlier_frames = static_cast<int>(earlier_frames_.size());
  if (observation.capture->clean) request.images.push_back(*observation.capture->clean);
  request.images.push_back(observation.capture->labelled);
  request.closer_look = observation.closer_look;
  return request;
}

Result<Plan> ModelPlanner::next(const Observation& observation) {
  VIMGPT_TRY(vision::Decision decision, client_.decide(request_for(observation)));
  if (settings_.frames > 1 && observation.capture != nullptr) {
    earlier_frames_.push_back(observation.capture->labelled);
    if (static_cast<int>(earlier_frames_.size()) >= settings_.frames) earlier_frames_.erase(earlier_frames_.begin());
  }
  Plan plan;
  plan.action = decision.action;
  plan.raw_reply = decision.raw_reply;
  plan.decision = std::move(decision);
  return plan;
}

std::optional<vision::FittedRequest> ModelPlanner::fit(const Observation& observation,
                                                       const vision::BudgetLeft& left) const {
  auto fitted = client_.fit(request_for(observation), left);
  if (!fitted) return std::nullopt;  // the request itself will fail, and say why
  return *fitted;
}

vision::Usage ModelPlanner::usage() const {
  vision::Usage used = client_.usage();
  if (checker_ != nullptr && checker_ != &client_) used += checker_->usage();
  return used;
}

std::optional<Result<vision::CheckVerdict>> ModelPlanner::check(const vision::AnswerCheck& check) {
  if (checker_ == nullptr) return std::nullopt;
  vision::AnswerCheck fenced = check;
  fenced.data_fence = fence_.marker();
  return checker_->check_answer(fenced);
}

ScriptedPlanner::ScriptedPlanner(std::vector<Json> actions) : actions_(std::move(actions)) {}

Result<std::unique_ptr<ScriptedPlanner>> ScriptedPlanner::from_file(const std::string& path) {
  const auto read = read_file(path);
  if (!read) return fail(ErrorKind::NotFound, "--actions: cannot read " + path);
  const std::string& text = *read;
  std::vector<Json> actions;
  Json whole = Json::parse(text, nullptr, false, true);
  if (whole.is_array()) {
    actions.assign(whole.begin(), whole.end());
  } else {
    // JSON Lines: one action object per line; blank lines are fine.
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      Json action = Json::parse(line, nullptr, false);
      if (action.is_discarded()) {
        return fail(ErrorKind::Parse, "--actions: " + path + " line " + std::to_string(number) +
                                          " is not JSON (expected a JSON array or one action object per line)");
      }
      actions.push_back(std::move(action));
    }
  }
  if (actions.empty()) return fail(ErrorKind::InvalidArgument, "--actions: " + path + " holds no actions");
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (auto parsed = parse_action(actions[i]); !parsed) {
      return fail(ErrorKind::InvalidArgument,
                  "--actions: action " + std::to_string(i + 1) + " of " + path + ": " + parsed.error().message);
    }
  }
  return std::make_unique<ScriptedPlanner>(std::move(actions));
}

Result<Plan> ScriptedPlanner::next(const Observation&) {
  Plan plan;
  // A script that ends without "done" finishes as done once every action has run.
  plan.action = next_ < actions_.size() ? actions_[next_++] : Json{{"done", nullptr}};
  plan.raw_reply = plan.action.dump();
  return plan;
}

}  // namespace vimgpt::agent
