// `vimgpt doctor`: one request with a labelled frame, read back stage by stage. Each failure names the stage it
// stopped at (by the HTTP status the provider answered, or none) and what to change.
#include <algorithm>

#include "common/text.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

using State = CheckStage::State;
using Clock = std::chrono::steady_clock;

void add(Checkup& checkup, std::string name, State state, std::string detail) {
  checkup.stages.push_back({std::move(name), state, std::move(detail)});
}

// The stages before the one a failed request stopped at passed; it failed; the rest were not reached.
void failed_at(Checkup& checkup, const std::vector<std::string>& order, const std::string& stage,
               const std::string& detail) {
  bool reached = false;
  for (const auto& name : order) {
    if (name == stage) {
      add(checkup, name, State::Failed, detail);
      reached = true;
    } else {
      add(checkup, name, reached ? State::Skipped : State::Passed, reached ? "" : "yes");
    }
  }
}

std::string where(const ClientOptions& options) {
  return options.model + " at " + (options.base_url.empty() ? std::string("the provider's API") : options.base_url);
}

std::string label_of(const Json& action) {
  const auto& click = action.value("click", Json());
  return click.is_string() ? ascii_lower(trim(click.get<std::string>())) : std::string();
}

}  // namespace

bool Checkup::passed() const {
  return std::none_of(stages.begin(), stages.end(),
                      [](const CheckStage& stage) { return stage.state == State::Failed; });
}

Checkup check_model(const ClientOptions& options, const EncodedImage& frame, const std::string& objective,
                    const Json& expected, const TargetBox& target, const std::string& marks) {
  Checkup checkup;
  const auto start = Clock::now();
  auto created = Client::create(options);
  if (!created) {
    add(checkup, "configuration", State::Failed, created.error().message);
    return checkup;
  }
  Client& client = **created;
  checkup.notices = client.notices();
  const ModelSpec* spec = client.model_spec();
  const std::string rules = std::string(to_string(client.provider())) + " rules, ";
  if (spec != nullptr) {
    add(checkup, "configuration", State::Passed,
        rules + "in the catalogue (" + std::string(to_string(spec->status)) + ")");
  } else if (client.provider() == Provider::Compatible && find_model(options.model) != nullptr) {
    add(checkup, "configuration", State::Passed, rules + "not the catalogue's (see the note)");
  } else {
    add(checkup, "configuration", State::Passed, rules + "not in the catalogue: safe defaults");
  }

  StepRequest step;
  step.objective = objective;
  step.images.push_back(frame);
  step.hint_text = marks;
  auto decision = client.decide(step);
  checkup.took = std::chrono::duration_cast<Milliseconds>(Clock::now() - start);
  checkup.notices = client.notices();
  const std::vector<std::string> order = {"reached", "key accepted", "model found", "request accepted"};
  if (!decision) {
    const long status = client.last_status();
    const std::string said = decision.error().message;
    if (status == 0) {
      failed_at(
          checkup, order, "reached",
          "no answer from " + where(client.options()) + ": check --base-url and that the server runs (" + said + ")");
    } else if (status == 401 || status == 403 || said.find("API key was refused") != std::string::npos) {
      // (Google refuses a wrong key with a 400, which the provider's error names.)
      failed_at(checkup, order, "key accepted",
                "the key was refused: check " + std::string(key_variable(client.provider())) + " or --api-key (" +
                    said + ")");
    } else if (status == 404) {
      failed_at(checkup, order, "model found",
                "no model " + options.model +
                    " there: check --model (vimgpt models lists current ones) and the base "
                    "URL (" +
                    said + ")");
    } else {
      failed_at(checkup, order, "request accepted", said);
    }
    return checkup;
  }
  for (const auto& name : order) add(checkup, name, State::Passed, "yes");
  const Json& sent = decision->request_metadata;
  const auto& image = sent.value("images", Json::array());
  add(checkup, "image accepted", State::Passed,
      image.empty()
          ? std::string("no image")
          : std::to_string(image[0].value("width", 0)) + "x" + std::to_string(image[0].value("height", 0)) + " " +
                image[0].value("mime", "") + ", about " + std::to_string(decision->estimated_image_tokens) + " tokens");
  const std::string method = sent.value("structured", "none");
  if (sent.value("structured_fallback", false)) {
    add(checkup, "structured output", State::Skipped,
        "the server refused it by name, so replies come without it (--structured off saves the refused request)");
  } else if (method == "none") {
    add(checkup, "structured output", State::Skipped,
        sent.contains("dialect") ? "not used: the model answers in its own " + sent.value("dialect", "") + " dialect"
                                 : std::string("not used (--structured off, or the model has none)"));
  } else {
    add(checkup, "structured output", State::Passed, method);
  }
  add(checkup, "reply parsed", State::Passed,
      decision->repair == Repair::None
          ? std::string("as sent: ") + decision->raw_reply
          : "after " + std::string(to_string(decision->repair)) + " repair: " + decision->raw_reply);
  const Json& point = decision->action.value("click_at", Json());
  const bool lands = point.is_array() && point.size() == 2 && point[0].is_number() && point[1].is_number() &&
                     target.width > 0 && point[0].get<double>() >= target.left &&
                     point[0].get<double>() < target.left + target.width && point[1].get<double>() >= target.top &&
                     point[1].get<double>() < target.top + target.height;
  if (lands) {
    add(checkup, "right action", State::Passed,
        decision->action.dump() + ": the point lands on the target (" + sent.value("dialect", "") + " dialect)");
  } else if (label_of(decision->action) == label_of(expected) && !label_of(expected).empty()) {
    add(checkup, "right action", State::Passed, decision->action.dump());
  } else {
    add(checkup, "right action", State::Failed,
        "answered " + decision->action.dump() + " where the frame asks for " + expected.dump() +
            ": the model may not see images (is it a vision model?) or read the labels (try --img-res high)");
  }
  checkup.decision = std::move(*decision);
  return checkup;
}

}  // namespace vimgpt::vision
