// H Company's Holo3 and Holo3.1 in their structured-output mode, as hub.hcompany.ai/agent-loop lays out the harness
// they were trained in (models.json "holo3"): the system prompt ends with the reply's schema in an <output_format>
// block, the same schema goes to the server as structured_outputs; each screenshot is a user turn wrapped in
// <observation>, the last three kept and older ones replaced by "[screenshot evicted]"; the model's turn is its
// parsed JSON only (never its reasoning); each action's result comes back as a user turn in <tool_output>. The
// reply is {"note", "thought", "tool_call"}, the call flat ("tool_name" beside its arguments), points 0-1000.
#include <algorithm>
#include <optional>

#include "common/text.h"
#include "vision/dialect.h"

namespace vimgpt::vision::detail {
namespace {

constexpr std::string_view kEvicted = "[screenshot evicted]";  // the page's trim_to_last_n_images

std::string observation_words(const std::string& url, const std::string& since) {
  std::string words = "<observation>\n";
  if (!since.empty()) words += since + "\n";
  if (!url.empty()) words += "URL: " + url + "\n";
  return words;
}

std::string tool_output(const HistoryEntry& entry, std::string_view tool) {
  const std::string result =
      !entry.error.empty() ? "Error: " + entry.error : (entry.result.empty() ? std::string("done") : entry.result);
  return "<tool_output tool=\"" + std::string(tool) + "\">\n" + result + "\n</tool_output>";
}

// The model's turn as the page re-adds it: the reply parsed and written again as JSON, so that nothing but the
// object (no reasoning, no text around it) goes back; a reply that never parsed goes back as it was.
Json parsed_reply(std::string_view reply) {
  Json parsed = Json::parse(outermost_braces(reply), nullptr, false);
  return parsed.is_object() ? parsed : Json();
}

// A coordinate as an integer, or as the [min, max] pair the hosted model sometimes writes despite its schema.
std::optional<double> coordinate(const Json& call, const char* key) {
  const Json& value = call.contains(key) ? call[key] : Json();
  if (value.is_number()) return value.get<double>();
  if (value.is_array() && value.size() == 2 && value[0].is_number() && value[1].is_number()) {
    return (value[0].get<double>() + value[1].get<double>()) / 2;
  }
  return std::nullopt;
}

std::string text_field(const Json& call, const char* key) {
  const Json& value = call.contains(key) ? call[key] : Json();
  return value.is_string() ? value.get<std::string>() : std::string();
}

}  // namespace

std::vector<Turn> holo_turns(const Dialect& dialect, const StepRequest& step, const std::vector<Size>& images) {
  std::string system = dialect.system_prompt;
  replace_all(system, "{instruction}", step.objective);
  system += "\n\n<output_format>\n```json\n" + dialect.tool.dump() + "\n```\n</output_format>";
  std::vector<Turn> turns{{"system", std::move(system), -1, ""}};
  const KeptScreenshots kept = kept_screenshots(step);
  int next_image = kept.first_image;
  std::size_t seen_steps = 0;
  std::string since;  // what happened outside the model's steps (a pause, a recovery), told in the next observation
  for (const auto& entry : step.history) {
    if (entry.reply.empty()) {
      add_outside_note(since, entry);
      continue;
    }
    const bool with_image = seen_steps++ >= kept.first_step;
    const std::string words = observation_words(entry.url, since);
    since.clear();
    if (with_image) {
      turns.emplace_back("user", "\n</observation>", next_image++, words);
    } else {
      turns.emplace_back("user", words + std::string(kEvicted) + "\n</observation>", -1, "");
    }
    const Json reply = parsed_reply(entry.reply);
    turns.emplace_back("assistant", reply.is_object() ? reply.dump() : entry.reply, -1, "");
    const Json call = reply.is_object() ? reply.value("tool_call", Json()) : Json();
    const std::string tool = call.is_object() ? text_field(call, "tool_name") : std::string();
    turns.emplace_back("user", tool_output(entry, tool.empty() ? "unknown" : tool), -1, "");
  }
  const int current = images.empty() ? -1 : static_cast<int>(images.size()) - 1;
  turns.emplace_back("user", "\n</observation>", current, observation_words(step.current_url, since));
  return turns;
}

Json holo_request_fields(const Dialect& dialect) {
  Json fields = dialect.request_fields.is_object() ? dialect.request_fields : Json::object();
  fields["structured_outputs"] = {{"json", dialect.tool}};
  return fields;
}

Result<Json> read_holo(std::string_view text, const Dialect& dialect, const PointFrame& frames, std::string& thoughts) {
  const Json reply = parsed_reply(text);
  if (!reply.is_object()) return fail(ErrorKind::Parse, "no JSON object in the reply");
  const Json call = reply.value("tool_call", Json());
  if (!call.is_object()) return fail(ErrorKind::Parse, "the reply has no \"tool_call\" object");
  thoughts = text_field(reply, "thought");
  const std::string tool = text_field(call, "tool_name");
  const auto point = [&]() -> std::optional<FramePoint> {
    const auto x = coordinate(call, "x");
    const auto y = coordinate(call, "y");
    if (!x || !y) return std::nullopt;
    return to_frame(dialect, frames, *x, *y);
  };
  const auto at = point();
  const auto needs_point = [&] {
    return unsupported("tool \"" + tool + "\" needs integers \"x\" and \"y\" in [0, 1000]");
  };
  if (tool == "click") return at ? Json{{"click_at", to_json(*at)}} : needs_point();
  if (tool == "move_mouse_web") return at ? Json{{"hover", to_json(*at)}} : needs_point();
  if (tool == "write") {
    const bool enter =
        call.contains("press_enter") && call["press_enter"].is_boolean() && call["press_enter"].get<bool>();
    return Json{{"type", text_field(call, "content")}, {"enter", enter}};
  }
  if (tool == "scroll_web") {
    const std::string direction = ascii_lower(text_field(call, "direction"));
    if (direction != "up" && direction != "down") {
      return unsupported("scroll_web scrolls \"up\" or \"down\"; it was given \"" + direction + "\"");
    }
    return scroll_at(at, direction);
  }
  if (tool == "press_keys_web") {
    std::string combo;
    for (const auto& key : call.value("keys", Json::array())) {
      if (!key.is_string()) continue;
      std::string name = key.get<std::string>();
      const std::string lower = ascii_lower(name);
      if (lower == "return") name = "Enter";
      if (lower == "esc") name = "Escape";
      if (lower == "ctrl") name = "Control";
      combo += (combo.empty() ? "" : "+") + name;
    }
    if (combo.empty()) return unsupported("press_keys_web needs \"keys\": a list of key names");
    return Json{{"key", combo}};
  }
  if (tool == "go_to_web") return Json{{"navigate", text_field(call, "url")}};
  if (tool == "go_back_web") return Json{{"back", true}};
  if (tool == "wait_web") {
    const Json& seconds = call.contains("seconds") ? call["seconds"] : Json();
    return Json{{"wait", std::clamp(seconds.is_number() ? seconds.get<double>() : 1.0, 0.0, 10.0)}};
  }
  if (tool == "answer") return Json{{"done", text_field(call, "content")}};
  return unsupported("there is no tool \"" + tool + "\": choose one of the tools in <output_format>");
}

}  // namespace vimgpt::vision::detail
