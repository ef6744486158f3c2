// The `computer_use` function call in <tool_call> tags: Qwen2.5-VL, Qwen3-VL, Qwen3.5 and Fara. The actions and their
// arguments are those of the tools the authors describe (QwenLM/Qwen3-VL cookbooks/utils/agent_function_call.py,
// microsoft/fara src/fara/_prompts.py and fara_agent.py's execute_action); models.json cites them. The call is a JSON
// object (Qwen2.5-VL's and Qwen3-VL's chat templates) or, as Qwen3.5's template asks for it,
// <function=computer_use><parameter=action>left_click</parameter>...</function>.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>

#include "common/text.h"
#include "vision/dialect.h"

namespace vimgpt::vision::detail {
namespace {

// A field as the model wrote it: text as it is, anything else as its JSON; a number, or `otherwise`.
std::string text_of(const Json& args, const char* key) {
  const Json& value = args.contains(key) ? args[key] : Json();
  if (value.is_null()) return {};
  return value.is_string() ? value.get<std::string>() : value.dump();
}
double number_of(const Json& args, const char* key, double otherwise) {
  const Json& value = args.contains(key) ? args[key] : Json();
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    try {
      return std::stod(value.get<std::string>());
    } catch (const std::exception&) {
      return otherwise;
    }
  }
  return otherwise;
}
bool flag_of(const Json& args, const char* key, bool otherwise) {
  const Json& value = args.contains(key) ? args[key] : Json();
  return value.is_boolean() ? value.get<bool>() : otherwise;
}

Json call_unsupported(const std::string& action, std::string_view instead) {
  return unsupported("vimgpt cannot do computer_use action \"" + action + "\"" +
                     (instead.empty() ? std::string(".") : ": " + std::string(instead)));
}

// The call's JSON: strict, else with Python's single quotes (Fara's harness falls back to literal_eval).
Json parse_call(std::string_view text) {
  const std::string_view object = outermost_braces(text);
  if (object.empty()) return Json();
  Json call = Json::parse(object, nullptr, false);
  if (!call.is_discarded()) return call;
  std::string python(object);
  std::replace(python.begin(), python.end(), '\'', '"');
  for (const auto& [from, to] : {std::pair{"True", "true"}, std::pair{"False", "false"}, std::pair{"None", "null"}}) {
    for (auto at = python.find(from); at != std::string::npos; at = python.find(from, at + 1)) {
      python.replace(at, std::string_view(from).size(), to);
    }
  }
  call = Json::parse(python, nullptr, false);
  return call.is_discarded() ? Json() : call;
}

// Qwen3.5's form: each <parameter=KEY> holds its value between a newline after the tag and one before the close
// (vLLM's qwen3_coder parser strips exactly those); a value is text where the tool's schema says so, else the JSON
// it reads as (with Python's True, False and None, which the template's str() writes), else text.
Json parse_xml_call(std::string_view text, const Json& tool) {
  const auto open = text.find("<function=");
  if (open == std::string_view::npos) return Json();
  const auto name_end = text.find('>', open);
  if (name_end == std::string_view::npos) return Json();
  Json call = {{"name", std::string(trim(text.substr(open + 10, name_end - open - 10)))},
               {"arguments", Json::object()}};
  const Json properties =
      tool.is_object() ? tool.value("parameters", Json::object()).value("properties", Json()) : Json();
  for (auto at = text.find("<parameter=", name_end); at != std::string_view::npos;
       at = text.find("<parameter=", at + 1)) {
    const auto key_end = text.find('>', at);
    const auto close = text.find("</parameter>", key_end);
    if (key_end == std::string_view::npos || close == std::string_view::npos) break;
    const std::string key(trim(text.substr(at + 11, key_end - at - 11)));
    std::string_view value = text.substr(key_end + 1, close - key_end - 1);
    if (value.starts_with('\n')) value.remove_prefix(1);
    if (value.ends_with('\n')) value.remove_suffix(1);
    const bool text_typed = properties.is_object() && properties.contains(key) && properties[key].is_object() &&
                            properties[key].value("type", "") == "string";
    Json parsed = text_typed ? Json(std::string(value)) : Json::parse(value, nullptr, false);
    if (parsed.is_discarded()) {
      parsed = value == "True"    ? Json(true)
               : value == "False" ? Json(false)
               : value == "None"  ? Json()
                                  : Json(std::string(value));
    }
    call["arguments"][key] = std::move(parsed);
  }
  return call;
}

// ["ctrl", "a"] -> "Control+a": vimgpt's key parser takes the names; what it does not know it says.
std::string key_combo(const Json& keys) {
  std::string combo;
  const auto add = [&combo](std::string key) {
    const std::string lower = ascii_lower(key);
    if (lower == "esc") key = "Escape";
    if (lower == "return") key = "Enter";
    if (lower == "win" || lower == "windows") key = "Meta";
    combo += (combo.empty() ? "" : "+") + key;
  };
  if (keys.is_string()) {
    add(keys.get<std::string>());
  } else if (keys.is_array()) {
    for (const auto& key : keys) {
      if (key.is_string()) add(key.get<std::string>());
    }
  }
  return combo;
}

std::string query_url(std::string_view query) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string url = "https://www.bing.com/search?q=";
  for (const char c : query) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      url += c;
    } else if (c == ' ') {
      url += '+';
    } else {
      url += '%';
      url += kHex[byte >> 4];
      url += kHex[byte & 15];
    }
  }
  return url;
}

Json action_of(const Json& args, const Dialect& dialect, const PointFrame& frames) {
  const std::string action = text_of(args, "action");
  const auto at = point_arg(args, "coordinate", dialect, frames);
  const auto needs_point = [&action](const char* what) {
    return unsupported("computer_use action \"" + action + "\" needs \"coordinate\": [x, y] " + what);
  };
  // A click with no coordinate clicks where the mouse is, as the families' harnesses (pyautogui) do.
  const Json here = at ? to_json(*at) : Json("pointer");
  if (action == "left_click" || action == "click") return {{"click_at", here}};
  // Qwen's own tool simulates a triple click as a double click, "the closest action".
  if (action == "double_click" || action == "triple_click") return {{"double_click", here}};
  if (action == "right_click") return {{"right_click", here}};
  if (action == "mouse_move") return at ? Json{{"hover", to_json(*at)}} : needs_point("to move the mouse to");
  if (action == "type") {
    Json typed = {{"type", text_of(args, "text")}};
    // Fara's harness presses Enter after typing unless told not to; Qwen's type only types.
    const bool fara_enter = dialect.family == "fara";
    typed["enter"] = flag_of(args, "press_enter", fara_enter);
    if (!at) return typed;
    Json list = Json::array({{{"click_at", to_json(*at)}}});
    if (flag_of(args, "delete_existing_text", false)) list.push_back({{"key", "Control+A"}});
    list.push_back(std::move(typed));
    return {{"actions", std::move(list)}};
  }
  if (action == "key") {
    const std::string combo = key_combo(args.contains("keys") ? args["keys"] : Json(text_of(args, "text")));
    if (combo.empty()) return unsupported("computer_use action \"key\" needs \"keys\": a list of key names");
    return {{"key", combo}};
  }
  if (action == "scroll") {
    // Positive pixels scroll up, negative down (both tools say so); vimgpt scrolls by a page.
    const double pixels = number_of(args, "pixels", -1.0);
    return scroll_at(at, pixels > 0 ? "up" : "down");
  }
  if (action == "hscroll") return call_unsupported(action, "it scrolls up and down only; scroll the page, or drag");
  if (action == "middle_click") return call_unsupported(action, "left_click the link instead");
  // From where the mouse is (the last mouse_move or click) to the coordinate, as Qwen's harness drags.
  if (action == "left_click_drag") {
    return at ? Json{{"drag", "pointer"}, {"to", to_json(*at)}} : needs_point("to drag the mouse to");
  }
  if (action == "wait" || action == "sleep") return {{"wait", std::clamp(number_of(args, "time", 1.0), 0.0, 10.0)}};
  if (action == "visit_url") {
    // Fara1.5's harness searches Bing for a "URL" with spaces in it.
    const std::string url = text_of(args, "url");
    return {{"navigate", url.find(' ') == std::string::npos ? url : query_url(url)}};
  }
  if (action == "web_search") return {{"navigate", query_url(text_of(args, "query"))}};  // as Fara's harness does
  if (action == "history_back") return {{"back", true}};
  if (action == "pause_and_memorize_fact") {
    // The fact stays in the conversation (the model's own turn); nothing happens on the page.
    return {{"wait", 0}};
  }
  if (action == "answer") return {{"done", text_of(args, "text")}};
  // GUI-Owl's "resolve the blocking window by interacting with the user": a question for the person.
  if (action == "interact") return {{"ask", text_of(args, "text")}};
  if (action == "ask_user_question") return {{"ask", text_of(args, "question")}};  // Fara1.5
  if (action == "read_page_answer_question") {
    // Fara1.5's harness hands the page's text to another model; vimgpt has none to hand it to.
    return call_unsupported(action, "read the answer from the screenshot, scrolling if needed, then terminate with it");
  }
  if (action == "terminate" || action == "stop") {
    // Fara1.5 answers in the call; Fara-7B's harness answers with the thoughts before it (filled in by the caller).
    if (const std::string answer = text_of(args, "answer"); !answer.empty()) return {{"done", answer}};
    return {{"done", text_of(args, "status") == "failure" ? Json("failure") : Json()}};
  }
  return call_unsupported(action.empty() ? std::string("(none)") : action,
                          "choose one of the actions the computer_use tool lists");
}

}  // namespace

Result<Json> read_computer_use(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                               std::string& thoughts) {
  std::string_view call = text;
  if (const auto open = text.find("<tool_call>"); open != std::string_view::npos) {
    thoughts = std::string(trim(text.substr(0, open)));
    call = text.substr(open + 11);
    if (const auto close = call.find("</tool_call>"); close != std::string_view::npos) call = call.substr(0, close);
  } else if (const auto brace = text.find('{'); brace != std::string_view::npos) {
    thoughts = std::string(trim(text.substr(0, brace)));
  }
  const Json parsed =
      call.find("<function=") != std::string_view::npos ? parse_xml_call(call, dialect.tool) : parse_call(call);
  if (!parsed.is_object()) {
    return fail(ErrorKind::Parse,
                dialect.xml_calls
                    ? "no computer_use call in the reply (expected <tool_call>\n<function=computer_use>\n"
                      "<parameter=action>\n...\n</parameter>\n</function>\n</tool_call>)"
                    : "no computer_use call in the reply (expected <tool_call>{\"name\": \"computer_use\", "
                      "\"arguments\": {...}}</tool_call>)");
  }
  Json args = parsed.contains("arguments") ? parsed["arguments"] : parsed;
  if (args.is_string()) args = Json::parse(args.get<std::string>(), nullptr, false);
  if (!args.is_object() || !args.contains("action")) {
    return fail(ErrorKind::Parse, "the computer_use call has no \"action\" in its arguments");
  }
  if (const std::string name = parsed.contains("name") ? text_of(parsed, "name") : "computer_use";
      name != "computer_use") {
    return unsupported("there is no tool \"" + name + "\": call computer_use");
  }
  return action_of(args, dialect, frames);
}

std::string with_xml_calls(std::string_view reply) {
  std::string text;
  std::size_t from = 0;
  for (auto open = reply.find("<tool_call>"); open != std::string_view::npos; open = reply.find("<tool_call>", from)) {
    const auto close = reply.find("</tool_call>", open);
    if (close == std::string_view::npos) break;
    const Json call = parse_call(reply.substr(open + 11, close - open - 11));
    text += reply.substr(from, open - from);
    from = close + 12;
    if (!call.is_object() || !call.contains("name") || !call.value("arguments", Json()).is_object()) {
      text += reply.substr(open, from - open);
      continue;
    }
    // As the template writes a call: text as it is, anything else as JSON (ollama's qwen35.go, checked against
    // the official template).
    text += "<tool_call>\n<function=" + text_of(call, "name") + ">\n";
    for (const auto& [key, value] : call["arguments"].items()) {
      text += "<parameter=" + key + ">\n" + (value.is_string() ? value.get<std::string>() : value.dump()) +
              "\n</parameter>\n";
    }
    text += "</function>\n</tool_call>";
  }
  return text + std::string(reply.substr(from));
}

}  // namespace vimgpt::vision::detail
