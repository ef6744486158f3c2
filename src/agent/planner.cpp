// Where actions come from: a vision model, or a script of actions replayed without one.
#include <fstream>
#include <sstream>

#include "agent/agent.h"

namespace vimgpt::agent {
namespace {}  // namespace

ModelPlanner::ModelPlanner(vision::Client& client, Observe observe, std::vector<std::string> secret_names)
    : client_(client), observe_(observe), secret_names_(std::move(secret_names)) {}

Result<Plan> ModelPlanner::next(const Observation& observation) {
  vision::StepRequest request;
  request.objective = observation.objective;
  request.history = observation.history;
  request.current_url = observation.url;
  request.secret_names = secret_names_;
  request.tabs = observation.tabs;
  request.upload_files = observation.upload_files;
  if (observation.capture != nullptr) {
    // A frame is already an encoded image with its format and size: it goes to the model as it is.
    if (observation.capture->clean) request.images.push_back(*observation.capture->clean);
    request.images.push_back(observation.capture->labelled);
    if (observe_ == Observe::Hybrid) request.hint_text = observation.capture->map.to_text();
  }
  VIMGPT_TRY(vision::Decision decision, client_.decide(request));
  Plan plan;
  plan.action = decision.action;
  plan.raw_reply = decision.raw_reply;
  plan.decision = std::move(decision);
  return plan;
}

vision::Usage ModelPlanner::usage() const {
  return client_.usage();
}

ScriptedPlanner::ScriptedPlanner(std::vector<Json> actions) : actions_(std::move(actions)) {}

Result<std::unique_ptr<ScriptedPlanner>> ScriptedPlanner::from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(ErrorKind::NotFound, "--actions: cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
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
