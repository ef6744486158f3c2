// Reading a record folder back, and finding a recorded step's element on today's page.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/file.h"
#include "replay/facts.h"
#include "replay/replay.h"

namespace vimgpt::replay {
namespace {

using detail::field;

constexpr const char* kRecordAgain = "run the task again with --record DIR (or --cache DIR) to make one that can be";

// The facts that must all be equal for an element to be the recorded one. The rect only breaks ties; the
// label, the "empty" flag and the reason are not identity.
constexpr const char* kIdentity[] = {"tag", "role", "text", "href", "type", "placeholder", "name", "frame"};

bool same_element(const Json& signature, const Json& hint) {
  for (const char* key : kIdentity) {
    if (field(signature, key) != field(hint, key)) return false;
  }
  return true;
}

double centre_distance(const Json& a, const Json& b) {
  const auto centre = [](const Json& rect, const char* axis, const char* size) {
    return rect.value(axis, 0.0) + rect.value(size, 0.0) / 2;
  };
  const Json& ra = a.value("rect", Json::object());
  const Json& rb = b.value("rect", Json::object());
  return std::hypot(centre(ra, "x", "width") - centre(rb, "x", "width"),
                    centre(ra, "y", "height") - centre(rb, "y", "height"));
}

// "the link \"Reserve this book\"", "the textbox with placeholder \"Search\"", "the a element".
std::string element_phrase(const Json& signature) {
  const std::string role = field(signature, "role");
  std::string noun = role.empty() || role == "generic" ? "the " + field(signature, "tag") + " element" : "the " + role;
  if (const auto text = field(signature, "text"); !text.empty()) return noun + " \"" + text + "\"";
  if (const auto placeholder = field(signature, "placeholder"); !placeholder.empty())
    return noun + " with placeholder \"" + placeholder + "\"";
  if (const auto name = field(signature, "name"); !name.empty()) return noun + " named \"" + name + "\"";
  if (const auto href = field(signature, "href"); !href.empty()) return noun + " to " + href;
  return noun;
}

Json read_json_file(const std::filesystem::path& path) {
  return Json::parse(read_file(path).value_or(std::string()), nullptr, false);
}

// Reads the record's fields with the types vimgpt writes them in; a field of another type throws (nlohmann's value()
// and get()), caught by load().
Result<Recording> read_record(const std::string& dir) {
  const std::filesystem::path folder(dir);
  const Json run = read_json_file(folder / "run.json");
  std::ifstream steps_file(folder / "steps.jsonl");
  if (!run.is_object() || !steps_file) {
    return fail(ErrorKind::NotFound, dir +
                                         " is not a record folder (it needs run.json and steps.jsonl, as --record "
                                         "writes them)");
  }
  Recording recording;
  recording.dir = dir;
  recording.objective = run.value("objective", "");
  recording.start_url = run.value("start_url", "");
  recording.answer = run.value("answer", Json());
  recording.output_schema = run.value("output_schema", Json());
  if (const auto outcome = run.value("outcome", "unfinished"); outcome != "done") {
    return fail(ErrorKind::Refused, "the run in " + dir + " ended \"" + outcome +
                                        "\": only a finished run (outcome done) can be replayed; " + kRecordAgain);
  }
  std::string line;
  while (std::getline(steps_file, line)) {
    const Json step = Json::parse(line, nullptr, false);
    // A failed step changed nothing to repeat; a torn line (a crash) is no step.
    if (!step.is_object() || !step.value("ok", false)) continue;
    auto action = agent::parse_action(step.value("action", Json()));
    if (!action) continue;
    RecordedStep recorded;
    recorded.step = step.value("step", 0);
    recorded.url = step.value("url", "");
    recorded.title = step.value("title", "");
    recorded.action = agent::to_json(*action);
    recorded.signature = step.value("signature", Json());
    recorded.signatures = step.value("signatures", Json());
    if (!recorded.signatures.is_array()) {
      recorded.signatures = recorded.signature.is_null() ? Json::array() : Json::array({recorded.signature});
    }
    recorded.page_digest = step.value("page_digest", "");
    recorded.result = step.value("result", "");
    if (const auto& person = step.value("takeover", Json()); person.is_object()) {
      recorded.takeover = person.value("description", "");
    }
    const auto frames = step.value("frames", Json::array());
    if (!frames.empty() && frames[0].is_string()) recorded.frame = frames[0].get<std::string>();
    const auto viewport = step.value("viewport", Json::array());
    if (viewport.size() == 2) {
      recorded.viewport_width = viewport[0].get<double>();
      recorded.viewport_height = viewport[1].get<double>();
    }
    const auto frame_size = step.value("frame_size", Json::array());
    if (frame_size.size() == 2) recorded.frame_width = frame_size[0].get<int>();
    const auto labels = agent::labels_of(*action);
    const bool signed_all = recorded.signatures.size() == labels.size() &&
                            std::all_of(recorded.signatures.begin(), recorded.signatures.end(),
                                        [](const Json& signature) { return signature.is_object(); });
    const bool done = agent::ends_done(*action);
    if (!signed_all || (done && recorded.page_digest.empty())) {
      return fail(ErrorKind::Refused, "step " + std::to_string(recorded.step) + " of " + dir + " has no " +
                                          (done ? "page digest" : "element signature") +
                                          ": it was recorded before vimgpt could replay runs; " + kRecordAgain);
    }
    recording.steps.push_back(std::move(recorded));
    if (done) break;
  }
  const auto ended = [](const RecordedStep& step) {
    auto action = agent::parse_action(step.action);
    return action && agent::ends_done(*action);
  };
  if (recording.steps.empty() || !ended(recording.steps.back())) {
    return fail(ErrorKind::Refused, "steps.jsonl in " + dir + " has no done step to end the replay; " + kRecordAgain);
  }
  // The first step that saw a page (an MCP session's first step may be an open with nothing seen before it).
  for (const auto& step : recording.steps) {
    if (step.viewport_width <= 0) continue;
    recording.viewport_width = static_cast<int>(step.viewport_width);
    recording.viewport_height = static_cast<int>(step.viewport_height);
    break;
  }
  return recording;
}

}  // namespace

// A record is a folder anyone can edit, or one copied from another machine: a field of another type than vimgpt writes
// is an error that says so, never a throw.
Result<Recording> load(const std::string& dir) {
  try {
    return read_record(dir);
  } catch (const Json::exception& error) {
    return fail(ErrorKind::Parse, dir + " holds a field of another type than vimgpt writes (" + error.what() +
                                      "): was it edited? " + kRecordAgain);
  }
}

Result<const hints::Hint*> find(const hints::HintMap& map, const Json& signature) {
  std::vector<std::pair<double, const hints::Hint*>> candidates;
  for (const auto& hint : map.hints()) {
    const Json facts = hints::to_json(hint);
    if (same_element(signature, facts)) candidates.emplace_back(centre_distance(signature, facts), &hint);
  }
  if (candidates.empty()) return fail(ErrorKind::NotFound, element_phrase(signature) + " is not on the page");
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Position only breaks ties: two candidates as near as each other are a guess, not a match.
  if (candidates.size() > 1 && candidates[1].first - candidates[0].first < 1.0) {
    return fail(ErrorKind::NotFound, std::to_string(candidates.size()) + " elements match " +
                                         element_phrase(signature) + " and none is nearer where it was recorded");
  }
  return candidates.front().second;
}

std::string intention(const Json& action, const Json& signature) {
  auto parsed = agent::parse_action(action);
  if (!parsed) return action.dump();
  const std::string element = signature.is_object() ? element_phrase(signature) : parsed->label;
  switch (parsed->kind) {
    case agent::ActionKind::Click: return "click " + element;
    case agent::ActionKind::ClickType: return "click " + element + " and type \"" + parsed->text + "\"";
    case agent::ActionKind::Select: return "choose \"" + parsed->text + "\" in " + element;
    case agent::ActionKind::Upload: return "give the file " + parsed->text + " to " + element;
    case agent::ActionKind::Done: return "finish with the answer " + parsed->answer.dump();
    case agent::ActionKind::Hover: return "point at " + element;
    case agent::ActionKind::DoubleClick: return "double-click " + element;
    case agent::ActionKind::TripleClick: return "triple-click " + element;
    case agent::ActionKind::RightClick: return "right-click " + element;
    default: return agent::describe(*parsed);
  }
}

}  // namespace vimgpt::replay
