// UI-TARS's text dialect: "Thought: …\nAction: click(point='<point>x y</point>')". The action space is the one
// bytedance/UI-TARS codes/ui_tars/prompt.py lists; the point forms (<point>x y</point>, start_box='(x,y)', a box's
// four numbers) are those codes/ui_tars/action_parser.py reads. models.json cites them.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "common/text.h"
#include "vision/dialect.h"

namespace vimgpt::vision::detail {
namespace {

struct Call {
  std::string name;
  std::map<std::string, std::string> args;
};

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether a quote at `at` closes a value: what follows is the call's end or the next "name=".
bool closes(std::string_view text, std::size_t at) {
  std::size_t next = at + 1;
  while (next < text.size() && text[next] == ' ') ++next;
  if (next >= text.size() || text[next] == ')') return true;
  if (text[next] != ',') return false;
  ++next;
  while (next < text.size() && text[next] == ' ') ++next;
  const std::size_t name = next;
  while (next < text.size() && is_name_char(text[next])) ++next;
  return next > name && next < text.size() && text[next] == '=';
}

// A quoted value with Python's escapes read; a quote inside the text that does not close it is kept (the model
// does not always escape the quotes in what it types).
std::string quoted(std::string_view text, std::size_t& at) {
  const char quote = text[at++];
  std::string value;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '\\' && at + 1 < text.size()) {
      const char next = text[at + 1];
      value += next == 'n' ? '\n' : next == 't' ? '\t' : next;
      at += 2;
      continue;
    }
    if (c == quote && closes(text, at)) {
      ++at;
      return value;
    }
    value += c;
    ++at;
  }
  return value;
}

std::optional<Call> parse_call(std::string_view text) {
  Call call;
  std::size_t at = 0;
  while (at < text.size() && is_name_char(text[at])) call.name += text[at++];
  if (call.name.empty() || at >= text.size() || text[at] != '(') return std::nullopt;
  ++at;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == ',' || text[at] == '\n')) ++at;
    if (at >= text.size() || text[at] == ')') break;
    std::string key;
    while (at < text.size() && is_name_char(text[at])) key += text[at++];
    while (at < text.size() && text[at] == ' ') ++at;
    if (key.empty() || at >= text.size() || text[at] != '=') return std::nullopt;
    ++at;
    while (at < text.size() && text[at] == ' ') ++at;
    std::string value;
    if (at < text.size() && (text[at] == '\'' || text[at] == '"')) {
      // As written: a typed text's trailing \n is its Enter.
      value = quoted(text, at);
    } else {
      while (at < text.size() && text[at] != ',' && text[at] != ')') value += text[at++];
      value = std::string(trim(value));
    }
    call.args[key] = std::move(value);
  }
  return call;
}

// "<point>197 525</point>", "(197,525)", "<|box_start|>(197,525)<|box_end|>", "[x1, y1, x2, y2]" (its centre).
std::optional<FramePoint> point_in(const std::string& value, const Dialect& dialect, const PointFrame& frames) {
  std::vector<double> numbers;
  for (std::size_t at = 0; at < value.size();) {
    if (std::isdigit(static_cast<unsigned char>(value[at])) == 0) {
      ++at;
      continue;
    }
    // strtod, not stod: a number past a double's range (the model's, or a server's garbage) is no point, not an
    // exception (dialect_fuzz found one).
    char* end = nullptr;
    const double number = std::strtod(value.c_str() + at, &end);
    at = static_cast<std::size_t>(end - value.c_str());
    if (!std::isfinite(number)) return std::nullopt;
    numbers.push_back(number);
  }
  if (numbers.size() == 2) return to_frame(dialect, frames, numbers[0], numbers[1]);
  if (numbers.size() == 4) {
    return to_frame(dialect, frames, (numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2);
  }
  return std::nullopt;
}

std::optional<FramePoint> start_point(const Call& call, const Dialect& dialect, const PointFrame& frames) {
  for (const char* key : {"point", "start_box", "start_point"}) {
    if (const auto found = call.args.find(key); found != call.args.end())
      return point_in(found->second, dialect, frames);
  }
  return std::nullopt;
}

Json tars_unsupported(const std::string& name, std::string_view why) {
  return unsupported("vimgpt cannot do UI-TARS action " + name + "(): " + std::string(why));
}

std::string arg(const Call& call, const char* key) {
  const auto found = call.args.find(key);
  return found == call.args.end() ? std::string() : found->second;
}

Json action_of(const Call& call, const Dialect& dialect, const PointFrame& frames, const std::string& thoughts) {
  const std::string& name = call.name;
  const auto at = start_point(call, dialect, frames);
  const auto needs_point = [&name] {
    return unsupported("UI-TARS action " + name + "() needs point='<point>x y</point>'");
  };
  if (name == "click" || name == "left_single") return at ? Json{{"click_at", to_json(*at)}} : needs_point();
  if (name == "left_double") return at ? Json{{"double_click", to_json(*at)}} : needs_point();
  if (name == "right_single") return at ? Json{{"right_click", to_json(*at)}} : needs_point();
  if (name == "drag" || name == "select") {
    std::optional<FramePoint> to;
    for (const char* key : {"end_box", "end_point"}) {
      if (call.args.contains(key)) to = point_in(arg(call, key), dialect, frames);
    }
    if (!at || !to) return tars_unsupported(name, "it needs start_point and end_point");
    return {{"drag", to_json(*at)}, {"to", to_json(*to)}};
  }
  if (name == "hotkey" || name == "press" || name == "keydown") {
    std::string keys = arg(call, "key");
    if (keys.empty()) keys = arg(call, "hotkey");
    std::string combo;
    std::string key;
    for (const char c : keys + ' ') {
      if (c != ' ') {
        key += c;
        continue;
      }
      if (!key.empty()) combo += (combo.empty() ? "" : "+") + (ascii_lower(key) == "esc" ? std::string("Escape") : key);
      key.clear();
    }
    if (combo.empty()) return tars_unsupported(name, "it needs key='ctrl c'");
    return {{"key", combo}};
  }
  if (name == "type") {
    std::string content = arg(call, "content");
    // The prompt's rule: a \n at the end of the content submits it.
    const bool submit = content.ends_with('\n');
    while (content.ends_with('\n')) content.pop_back();
    return {{"type", content}, {"enter", submit}};
  }
  if (name == "scroll") {
    const std::string direction = ascii_lower(arg(call, "direction"));
    if (direction != "up" && direction != "down") return tars_unsupported(name, "it scrolls up and down only");
    return scroll_at(at, direction);
  }
  if (name == "wait") return {{"wait", 5}};  // "Sleep for 5s", as the prompt says
  if (name == "finished") {
    const std::string content = arg(call, "content");
    return {{"done", content.empty() ? Json() : Json(content)}};
  }
  if (name == "call_user") return {{"ask", thoughts.empty() ? std::string("I need your help to go on.") : thoughts}};
  if (name == "press_back") return {{"back", true}};
  return tars_unsupported(name, "use one of the actions of the action space");
}

}  // namespace

Result<Json> read_ui_tars(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                          std::string& thoughts) {
  const auto action_at = text.rfind("Action:");
  if (action_at == std::string_view::npos) {
    return fail(ErrorKind::Parse, "no \"Action:\" in the reply (expected \"Thought: ...\\nAction: ...\")");
  }
  std::string_view before = trim(text.substr(0, action_at));
  for (const std::string_view lead : {"Thought:", "Reflection:", "Action_Summary:"}) {
    if (before.starts_with(lead)) before = trim(before.substr(lead.size()));
  }
  thoughts = std::string(before);
  std::string_view action = trim(text.substr(action_at + 7));
  // Several actions are separated by a blank line: the first is done, the model sees the page after it.
  if (const auto blank = action.find("\n\n"); blank != std::string_view::npos) action = trim(action.substr(0, blank));
  const auto call = parse_call(action);
  if (!call) return fail(ErrorKind::Parse, "the action \"" + std::string(action.substr(0, 200)) + "\" is not a call");
  return action_of(*call, dialect, frames, thoughts);
}

}  // namespace vimgpt::vision::detail
