// Ai2's MolmoWeb as its authors' harness speaks to it (allenai/molmoweb agent/multimodal_agent.py and
// inference/client.py; models.json "molmoweb"): no system prompt and no earlier turns. Each step is one user turn,
// the screenshot and then the template after "molmo_web_think: ": the goal, the last ten steps (each one's THOUGHT
// and its ACTION as Python prints the action's dict), the page ("Page i: title | url") and "# NEXT STEP". The reply is
// one JSON object, {"thought", "action": {"name", ...}} (or the action alone), its points in percent of the
// screenshot; the run ends with a message to the user that starts "[ANSWER]".
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "vision/dialect.h"

namespace vimgpt::vision::detail {
namespace {

using Ordered = nlohmann::ordered_json;  // the reply's keys in the order the model wrote them, as json.loads keeps

// The harness's truncate_str: text longer than `max` characters is cut to fit with the mark (a title or address to
// 100, a message to 1,000).
std::string truncated(const std::string& text, std::size_t max) {
  constexpr std::string_view kMark = "... (truncated)";
  if (utf8_length(text) <= max) return text;
  std::size_t kept = 0;
  std::size_t at = 0;
  for (; at < text.size(); ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) continue;
    if (kept++ == max - kMark.size()) break;
  }
  return text.substr(0, at) + std::string(kMark);
}

std::string python_string(const std::string& text) {
  // repr() quotes with ' unless the text holds a ' and no ".
  const char quote = text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + quote;
}

// The reply as the harness reads it: the object, or nullopt when it is no JSON object.
std::optional<Ordered> reply_object(std::string_view text) {
  Ordered reply = Ordered::parse(outermost_braces(text), nullptr, false);
  if (!reply.is_object()) return std::nullopt;
  return reply;
}

// The action of a reply, and its thought, as the harness keeps them for the template: gemini_type_text_at's point
// made percent and a message cut to 1,000 characters; a reply it could not read is a report_infeasible.
std::pair<Ordered, std::string> kept_step(std::string_view reply) {
  const auto parsed = reply_object(reply);
  Ordered action;
  std::string thought;
  if (parsed && parsed->contains("action") && (*parsed)["action"].is_object()) {
    action = (*parsed)["action"];
    thought = text_at(*parsed, "thought");
  } else if (parsed && parsed->contains("name")) {
    action = *parsed;
  } else {
    return {Ordered{{"name", "report_infeasible"},
                    {"infeasibility_reason", "Unparseable model output: " + std::string(reply)}},
            "Could not parse predicted action"};
  }
  if (text_at(action, "name") == "gemini_type_text_at") {
    for (const char* key : {"x", "y"}) {
      if (action.contains(key) && action[key].is_number()) action[key] = action[key].get<double>() / 10.0;
    }
  }
  if (text_at(action, "name") == "send_msg_to_user" && action.contains("msg") && action["msg"].is_string()) {
    action["msg"] = truncated(action["msg"].get<std::string>(), 1000);
  }
  return {action, thought};
}

double number_of(const Ordered& action, const char* key, double otherwise) {
  const auto found = action.find(key);
  if (found == action.end()) return otherwise;
  if (found->is_number()) return found->get<double>();
  if (found->is_string()) {
    const std::string text = found->get<std::string>();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str()) return value;
  }
  return otherwise;
}

}  // namespace

std::string python_repr(const Ordered& value) {
  switch (value.type()) {
    case Ordered::value_t::null: return "None";
    case Ordered::value_t::boolean: return value.get<bool>() ? "True" : "False";
    case Ordered::value_t::string: return python_string(value.get<std::string>());
    case Ordered::value_t::array: {
      std::string out = "[";
      for (const auto& item : value) out += (out.size() > 1 ? ", " : "") + python_repr(item);
      return out + "]";
    }
    case Ordered::value_t::object: {
      std::string out = "{";
      for (const auto& [key, item] : value.items()) {
        out += (out.size() > 1 ? ", " : "") + python_string(key) + ": " + python_repr(item);
      }
      return out + "}";
    }
    default: return value.dump();  // numbers: both print the shortest form that reads back the same
  }
}

std::vector<Turn> molmoweb_turns(const Dialect& dialect, const StepRequest& step, const std::vector<Size>& images) {
  std::vector<std::string> steps;
  for (const auto& entry : step.history) {
    if (entry.reply.empty()) continue;  // the harness has no words for what was not the model's step
    const auto [action, thought] = kept_step(entry.reply);
    steps.push_back("## Step " + std::to_string(steps.size() + 1) + "\nTHOUGHT: " + thought +
                    "\nACTION: " + python_repr(action) + "\n");
  }
  const std::size_t keep = dialect.past_steps > 0 ? static_cast<std::size_t>(dialect.past_steps) : steps.size();
  std::string previous;
  for (std::size_t i = steps.size() - std::min(keep, steps.size()); i < steps.size(); ++i) previous += steps[i];
  int page_index = 0;
  for (const auto& tab : step.tabs) {
    if (tab.current) page_index = tab.number - 1;
  }
  std::string prompt = dialect.first_turn;
  // The fields the page controls go in last, so that nothing they hold is read as another field's name.
  replace_all(prompt, "{page_index}", std::to_string(page_index));
  replace_all(prompt, "{previous}", previous);
  replace_all(prompt, "{instruction}", step.objective);
  replace_all(prompt, "{page_url}", truncated(step.current_url, 100));
  replace_all(prompt, "{page_title}", truncated(step.current_title, 100));
  return {{"user", std::move(prompt), images.empty() ? -1 : static_cast<int>(images.size()) - 1, ""}};
}

Result<Json> read_molmoweb(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                           std::string& thoughts) {
  const auto reply = reply_object(text);
  if (!reply) return fail(ErrorKind::Parse, "no JSON object in the reply");
  Ordered action;
  if (reply->contains("action") && (*reply)["action"].is_object()) {
    action = (*reply)["action"];
    thoughts = text_at(*reply, "thought");
  } else if (reply->contains("name")) {
    action = *reply;
  } else {
    return fail(ErrorKind::Parse, "the reply has neither an \"action\" object nor an action \"name\"");
  }
  const std::string name = text_at(action, "name");
  // A point of the screenshot in percent (gemini_type_text_at's in thousandths), kept inside the frame as the
  // harness keeps it: [1, side - 2] pixels.
  const auto point = [&](const char* x_key, const char* y_key, double per_cent = 1.0) -> std::optional<Json> {
    const double x = number_of(action, x_key, -1);
    const double y = number_of(action, y_key, -1);
    if (x < 0 || y < 0) return std::nullopt;
    const FramePoint at = to_frame(dialect, frames, x / per_cent, y / per_cent);
    const auto inside = [](double value, int side) { return std::clamp(value, 1.0, std::max(1.0, side - 2.0)); };
    return Json::array({inside(at.x, frames.frame.width), inside(at.y, frames.frame.height)});
  };
  const auto needs = [&name](const char* what) {
    return unsupported("action \"" + name + "\" needs " + what + " in percent (0-100) of the screenshot");
  };
  if (name == "click" || name == "mouse_click" || name == "dblclick") {
    const auto at = point("x", "y");
    if (!at) return needs("\"x\" and \"y\"");
    const std::string button = ascii_lower(text_at(action, "button"));
    if (name == "dblclick" || text_at(action, "click_type") == "double") return Json{{"double_click", *at}};
    if (button == "right") return Json{{"right_click", *at}};
    if (button == "middle") return unsupported("vimgpt does not middle-click: click the link with the left button");
    return Json{{"click_at", *at}};
  }
  if (name == "hover_at") {
    const auto at = point("x", "y");
    return at ? Json{{"hover", *at}} : needs("\"x\" and \"y\"");
  }
  if (name == "drag_and_drop" || name == "mouse_drag_and_drop") {
    const auto from = point("from_x", "from_y");
    const auto to = point("to_x", "to_y");
    if (!from || !to) return needs("\"from_x\", \"from_y\", \"to_x\" and \"to_y\"");
    return Json{{"drag", *from}, {"to", *to}};
  }
  if (name == "scroll" || name == "scroll_at") {
    // Deltas in percent of the viewport, positive down as the mouse wheel's; vimgpt scrolls by a page.
    const double dy = number_of(action, "delta_y", 0);
    if (dy == 0) return unsupported("vimgpt scrolls up and down only: give \"delta_y\"");
    const std::string direction = dy > 0 ? "down" : "up";
    if (name == "scroll") return Json{{"scroll", direction}};
    const auto at = point("x", "y");
    if (!at) return needs("\"x\" and \"y\"");
    return Json{{"scroll", direction}, {"in", *at}};
  }
  if (name == "type" || name == "keyboard_type") return Json{{"type", text_at(action, "text")}, {"enter", false}};
  if (name == "keypress" || name == "keyboard_press") {
    std::string key = text_at(action, "key");
    if (key.empty()) return unsupported("action \"" + name + "\" needs \"key\"");
    replace_all(key, "ControlOrMeta", "Control");  // Playwright's name for the platform's shortcut key
    return Json{{"key", key}};
  }
  if (name == "gemini_type_text_at") {
    const auto at = point("x", "y", 10.0);  // thousandths, as the harness reads this action's point
    if (!at) return unsupported("action \"gemini_type_text_at\" needs \"x\" and \"y\" in thousandths (0-1000)");
    const auto flag = [&](const char* key) {
      const auto found = action.find(key);
      return found == action.end() || !found->is_boolean() || found->get<bool>();  // both default to true
    };
    Json list = Json::array({{{"click_at", *at}}});
    if (flag("clear_before_typing")) list.push_back({{"key", "Control+A"}});
    list.push_back({{"type", text_at(action, "text")}, {"enter", flag("press_enter")}});
    return Json{{"actions", std::move(list)}};
  }
  if (name == "goto") return Json{{"navigate", text_at(action, "url")}};
  if (name == "browser_nav") {
    const std::string how = text_at(action, "nav_type");
    if (how == "go_back") return Json{{"back", true}};
    if (how == "tab_focus") return Json{{"tab", static_cast<int>(number_of(action, "index", 0)) + 1}};
    return unsupported("vimgpt opens no empty tab (browser_nav \"" + how + "\"): goto the address instead");
  }
  if (name == "send_msg_to_user") {
    // "[ANSWER] ..." and "[EXIT] ..." end the authors' run; any other message is the model asking the person.
    const std::string message = text_at(action, "msg");
    for (const std::string_view mark : {"[ANSWER]", "[EXIT]"}) {
      if (message.starts_with(mark)) {
        const std::string answer(trim(std::string_view(message).substr(mark.size())));
        return Json{{"done", answer.empty() ? std::string(mark) : answer}};
      }
    }
    return Json{{"ask", message}};
  }
  if (name == "noop") return Json{{"wait", 5}};  // the harness's noop waits five seconds
  if (name == "report_infeasible") return Json{{"done", "infeasible: " + text_at(action, "infeasibility_reason")}};
  return unsupported("there is no action \"" + name + "\": choose one of the actions MolmoWeb was trained on");
}

}  // namespace vimgpt::vision::detail
