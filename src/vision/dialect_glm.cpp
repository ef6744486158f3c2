// GLM-V's web mode, as zai-org/GLM-V examples/gui-agent/glm-45v/gui_agent_45v.py sends and reads it (models.json
// "glm-v"): no system prompt and no multi-turn conversation, but one user turn holding the marked screenshot and the
// authors' prompt, filled with the task, the last 15 steps ("{i}.Thought:... Action:... Observation:..."), the
// model's own memory (its last Memory_Updated) and the marked elements; the reply is "Thought: ... Action: ...
// Memory_Updated: ...", its action one of the web action space, read with the patterns of the authors' WebVoyager
// reward (glmv_reward/scripts/gui_agent/WebVoyager.py).
#include <chrono>
#include <ctime>
#include <regex>

#include "common/text.h"
#include "vision/dialect.h"

namespace vimgpt::vision::detail {
namespace {

constexpr std::size_t kStepsShown = 15;  // the harness's history[-15:]

struct GlmReply {
  std::string thought;
  std::string action;
  std::string memory;
};

void erase_all(std::string& text, std::string_view part) {
  replace_all(text, part, "");
}

// The reply's three parts. The authors' parser reads them inside <answer>...</answer> (GLM-4.1V's form; their
// README says GLM-4.5V drops those tags), and their other modes wrap the action in box tokens: both are taken off.
std::optional<GlmReply> split_reply(std::string_view text) {
  std::string body(text);
  if (const auto open = body.find("<answer>"); open != std::string::npos) {
    const auto close = body.find("</answer>", open);
    body = body.substr(open + 8, close == std::string::npos ? std::string::npos : close - open - 8);
  }
  erase_all(body, "<|begin_of_box|>");
  erase_all(body, "<|end_of_box|>");
  const auto action = body.find("Action:");
  if (action == std::string::npos) return std::nullopt;
  GlmReply reply;
  const auto thought = body.rfind("Thought:", action);
  if (thought != std::string::npos)
    reply.thought = trim(std::string_view(body).substr(thought + 8, action - thought - 8));
  const auto memory = body.find("Memory_Updated:", action);
  reply.action = trim(
      std::string_view(body).substr(action + 7, memory == std::string::npos ? std::string::npos : memory - action - 7));
  if (memory != std::string::npos) reply.memory = trim(std::string_view(body).substr(memory + 15));
  return reply;
}

// The hour in Beijing, as the harness writes it ("%Y-%m-%d, %I:00 %p"): its prompt says the time is Beijing's.
std::string beijing_hour() {
  const std::time_t now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + std::chrono::hours(8));
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d, %I:00 %p", &utc);
  return text;
}

// vimgpt's element lines ("[3] button "Close"") in the harness's form ("[3]: button "Close";"), one after another.
std::string element_list(std::string_view hint_text) {
  std::string list;
  std::size_t start = 0;
  while (start < hint_text.size()) {
    const std::size_t end = std::min(hint_text.find('\n', start), hint_text.size());
    std::string line(trim(hint_text.substr(start, end - start)));
    start = end + 1;
    const auto close = line.find("] ");
    if (line.empty() || line.front() != '[' || close == std::string::npos) continue;
    list += (list.empty() ? "" : "\t") + line.substr(0, close + 1) + ": " + line.substr(close + 2) + ";";
  }
  return list;
}

std::string observation_of(const HistoryEntry& entry) {
  if (!entry.error.empty()) return "Failed: " + entry.error;
  return entry.result.empty() ? "Success" : entry.result;
}

}  // namespace

std::vector<Turn> glm_turns(const Dialect& dialect, const StepRequest& step, int image) {
  std::vector<std::string> lines;
  std::string memory = "{}";
  for (const auto& entry : step.history) {
    if (entry.reply.empty()) {
      // Not the model's step (a pause, a recovery): told in the observation of the step before it.
      const std::string& note = entry.error.empty() ? entry.result : entry.error;
      if (!lines.empty() && !note.empty()) lines.back() += "; " + note;
      continue;
    }
    const auto reply = split_reply(entry.reply);
    const std::string thought = reply ? reply->thought : std::string(trim(entry.reply));
    const std::string action = reply ? reply->action : entry.action.dump();
    if (reply && !reply->memory.empty()) memory = reply->memory;
    std::string line = "Thought:" + thought;
    line += " Action:" + action;
    line += " Observation:" + observation_of(entry);
    lines.push_back(std::move(line));
  }
  std::string previous;
  const std::size_t first = lines.size() > kStepsShown ? lines.size() - kStepsShown : 0;
  for (std::size_t i = first; i < lines.size(); ++i) previous += std::to_string(i) + "." + lines[i] + "\n";
  std::string prompt = dialect.system_prompt;
  replace_all(prompt, "{TASK}", step.objective);
  replace_all(prompt, "{Web}", step.current_url.empty() ? std::string("the web") : step.current_url);
  replace_all(prompt, "{Time}", beijing_hour());
  replace_all(prompt, "{PREVIOUS_ACTIONS}", previous);
  replace_all(prompt, "{Memory}", memory);
  replace_all(prompt, "{web_text}", element_list(step.hint_text));
  return {{"user", prompt, image, ""}};
}

Result<Json> read_glm_marks(std::string_view text, std::string& thoughts) {
  const auto reply = split_reply(text);
  if (!reply) return fail(ErrorKind::Parse, "no \"Action:\" in the reply");
  thoughts = reply->thought;
  const std::string& action = reply->action;
  std::smatch match;
  const auto is = [&](const char* pattern) {
    return std::regex_search(action, match, std::regex(pattern, std::regex::icase));
  };
  // The reward's patterns, in its order; ANSWER's content tags may be missing.
  if (is(R"(^Click \[?(\d+)\]?)")) return Json{{"click", match[1].str()}};
  if (is(R"(^Type \[?(\d+)\]?[; ]+\[?([^\]]*)\]?)")) {
    // "Delete existing content in a textbox and then type content ... the system automatically hits ENTER".
    return Json{{"actions", Json::array({{{"click", match[1].str()}},
                                         {{"key", "Control+A"}},
                                         {{"type", match[2].str()}, {"enter", true}}})}};
  }
  if (is(R"(^Key[; ]+\[?([^\]]*)\]?)")) {
    const std::string key(trim(match[1].str()));
    return Json{{"key", ascii_lower(key) == "return" ? std::string("Enter") : key}};
  }
  if (is(R"(^Scroll \[?(\d+|WINDOW)\]?[; ]+\[?(up|down)\]?)")) {
    Json scroll = {{"scroll", ascii_lower(match[2].str())}};
    if (ascii_lower(match[1].str()) != "window") scroll["in"] = match[1].str();
    return scroll;
  }
  if (is(R"(^Wait)")) return Json{{"wait", 5}};  // "waiting for 5 seconds"
  if (is(R"(^GoBack)")) return Json{{"back", true}};
  if (is(R"(^Bing)")) return Json{{"navigate", "https://www.bing.com/"}};
  if (is(R"(^Google)")) return Json{{"navigate", "https://www.google.com/"}};
  if (is(R"(^ANSWER[; ]+<content>([\s\S]*?)</content>)") || is(R"(^ANSWER[; ]+([\s\S]*))")) {
    return Json{{"done", std::string(trim(match[1].str()))}};
  }
  return fail(ErrorKind::Parse, "\"" + action.substr(0, 80) + "\" is not an action of GLM-V's web action space");
}

}  // namespace vimgpt::vision::detail
