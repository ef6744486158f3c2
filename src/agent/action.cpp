// The action vocabulary: the seed's contract ({"navigate"}, {"click"}, {"type"}, {"click"+"type"}, {"done"})
// plus our extensions, parsed in the seed's priority order and validated before anything touches the page.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>

#include "agent/agent.h"
#include "common/text.h"

namespace vimgpt::agent {
namespace {

Result<std::string> string_field(const Json& reply, const char* key) {
  const auto& value = reply.at(key);
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();  // a label like 12 or a number to type
  return fail(ErrorKind::InvalidArgument, std::string("\"") + key + "\" must be a string");
}

Result<std::string> text_field(const Json& reply, const char* key) {
  VIMGPT_TRY(std::string text, string_field(reply, key));
  if (text.size() > kMaxTypedText) {
    return fail(ErrorKind::Refused, "the text to type is " + std::to_string(text.size()) + " characters; at most " +
                                        std::to_string(kMaxTypedText) + " are allowed in one action");
  }
  return text;
}

Result<std::string> label_field(const Json& reply, const char* key) {
  VIMGPT_TRY(std::string label, string_field(reply, key));
  if (label.empty()) return fail(ErrorKind::InvalidArgument, std::string("\"") + key + "\" needs a hint label");
  return label;
}

bool has(const Json& reply, const char* key) {
  return reply.contains(key) && !reply.at(key).is_null();
}

// A whole number from 1 ("tab", "page"); 2.0 is taken as 2.
Result<int> counting_number(const Json& reply, const char* key, const char* what) {
  const auto& number = reply.at(key);
  const bool whole =
      number.is_number_integer() || (number.is_number() && number.get<double>() == std::floor(number.get<double>()));
  if (!whole || number.get<double>() < 1 || number.get<double>() > 1e6) {
    return fail(ErrorKind::InvalidArgument, "\"" + std::string(key) + "\" takes " + what + ", from 1");
  }
  return static_cast<int>(number.get<double>());
}

Result<Enter> enter_field(const Json& reply) {
  if (!has(reply, "enter")) return Enter::Auto;
  const auto& value = reply.at("enter");
  if (!value.is_boolean()) return fail(ErrorKind::InvalidArgument, "\"enter\" must be true or false");
  return value.get<bool>() ? Enter::Press : Enter::Skip;
}

// [x, y] in pixels of the frame.
Result<std::pair<double, double>> point_field(const Json& value, const char* key) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number() || !value[1].is_number() ||
      value[0].get<double>() < 0 || value[1].get<double>() < 0) {
    return fail(ErrorKind::InvalidArgument,
                std::string("\"") + key + "\" must be a label or [x, y] in pixels of the screenshot");
  }
  return std::pair{value[0].get<double>(), value[1].get<double>()};
}

// "pointer": where the pointer rests (an open family's click or drag that names no point).
bool is_pointer(const Json& value) {
  return value.is_string() && ascii_lower(value.get<std::string>()) == "pointer";
}

// "in": the label of the element to scroll or look in.
Result<std::string> optional_label(const Json& reply, const char* key) {
  if (!has(reply, key)) return std::string();
  return label_field(reply, key);
}

// "done": false is a structured reply's "not done yet": it yields to any other action in the reply.
bool is_done(const Json& reply) {
  if (!reply.contains("done")) return false;
  if (reply.at("done") != false) return true;
  return std::none_of(reply.items().begin(), reply.items().end(),
                      [](const auto& item) { return item.key() != "done" && !item.value().is_null(); });
}

}  // namespace

std::string_view to_string(ActionKind kind) {
  switch (kind) {
    case ActionKind::Done: return "done";
    case ActionKind::ClickType: return "click+type";
    case ActionKind::Navigate: return "navigate";
    case ActionKind::Type: return "type";
    case ActionKind::Click: return "click";
    case ActionKind::Select: return "select";
    case ActionKind::Upload: return "upload";
    case ActionKind::SwitchTab: return "tab";
    case ActionKind::CloseTab: return "close_tab";
    case ActionKind::Ask: return "ask";
    case ActionKind::Handoff: return "handoff";
    case ActionKind::ClickAt: return "click_at";
    case ActionKind::Scroll: return "scroll";
    case ActionKind::Back: return "back";
    case ActionKind::Key: return "key";
    case ActionKind::Wait: return "wait";
    case ActionKind::Hover: return "hover";
    case ActionKind::DoubleClick: return "double_click";
    case ActionKind::TripleClick: return "triple_click";
    case ActionKind::RightClick: return "right_click";
    case ActionKind::Drag: return "drag";
    case ActionKind::SelectText: return "select_text";
    case ActionKind::Actions: return "actions";
    case ActionKind::Dialog: return "dialog";
    case ActionKind::Page: return "page";
    case ActionKind::Zoom: return "zoom";
  }
  return "action";
}

Result<std::string> normalize_url(std::string_view url) {
  std::string trimmed(url);
  trimmed.erase(0, trimmed.find_first_not_of(" \t\r\n"));
  trimmed.erase(trimmed.find_last_not_of(" \t\r\n") + 1);
  if (trimmed.empty()) return fail(ErrorKind::InvalidArgument, "\"navigate\" needs a URL");
  // A path, as the label lists write a link on the page's own site: resolved against the page when it is acted on.
  if (trimmed.starts_with("//")) return "https:" + trimmed;
  if (trimmed.starts_with('/')) return trimmed;
  const auto colon = trimmed.find(':');
  const auto first_special = trimmed.find_first_of("/?#");
  const bool has_scheme =
      colon != std::string::npos && colon > 0 && (first_special == std::string::npos || colon < first_special) &&
      std::all_of(trimmed.begin(), trimmed.begin() + static_cast<long>(colon),
                  [](unsigned char c) { return std::isalnum(c) || c == '+' || c == '-' || c == '.'; });
  // "localhost:8080/x" has a colon but no scheme: a scheme is never followed by digits only.
  const bool looks_like_port =
      has_scheme && colon + 1 < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[colon + 1]));
  if (!has_scheme || looks_like_port) return "https://" + trimmed;
  const std::string scheme = ascii_lower(trimmed.substr(0, colon));
  if (scheme == "http" || scheme == "https") return trimmed;
  return fail(ErrorKind::Refused, "navigation to " + scheme + ": URLs is not allowed (only http and https)");
}

Result<Action> parse_action(const Json& reply, std::size_t max_actions) {
  if (!reply.is_object()) {
    return fail(ErrorKind::InvalidArgument, std::string("the reply must be one JSON object, not ") +
                                                (reply.is_array() ? "an array" : reply.type_name()));
  }
  Action action;
  // An open family's action vimgpt cannot do, said by the vision module in words the model reads next step.
  if (has(reply, "unsupported")) {
    const auto& why = reply.at("unsupported");
    return fail(ErrorKind::InvalidArgument, why.is_string() ? why.get<std::string>() : why.dump());
  }
  if (is_done(reply)) {
    action.kind = ActionKind::Done;
    action.answer = reply.at("done");
    return action;
  }
  if (has(reply, "click") && has(reply, "type")) {
    action.kind = ActionKind::ClickType;
    VIMGPT_TRY(action.label, label_field(reply, "click"));
    VIMGPT_TRY(action.text, text_field(reply, "type"));
    VIMGPT_TRY(action.enter, enter_field(reply));
    return action;
  }
  if (has(reply, "navigate")) {
    action.kind = ActionKind::Navigate;
    VIMGPT_TRY(std::string url, string_field(reply, "navigate"));
    VIMGPT_TRY(action.text, normalize_url(url));
    return action;
  }
  if (has(reply, "type")) {
    action.kind = ActionKind::Type;
    VIMGPT_TRY(action.text, text_field(reply, "type"));
    VIMGPT_TRY(action.enter, enter_field(reply));
    return action;
  }
  if (has(reply, "click")) {
    action.kind = ActionKind::Click;
    VIMGPT_TRY(action.label, label_field(reply, "click"));
    return action;
  }
  if (has(reply, "actions")) {
    const auto& list = reply.at("actions");
    if (!list.is_array() || list.empty()) {
      return fail(ErrorKind::InvalidArgument, "\"actions\" must be a list of actions, done in order");
    }
    action.kind = ActionKind::Actions;
    // Past the limit the first ones are still done, and the result names the rest: the reply is not lost.
    const std::size_t taken = std::min(list.size(), max_actions);
    action.over_limit.assign(list.begin() + static_cast<std::ptrdiff_t>(taken), list.end());
    for (std::size_t i = 0; i < taken; ++i) {
      auto one = parse_action(list[i], max_actions);
      if (!one) {
        return fail(one.error().kind, "action " + std::to_string(i + 1) + " of the list: " + one.error().message);
      }
      const bool last = i + 1 == taken;
      if (one->kind == ActionKind::Actions || one->kind == ActionKind::Ask || one->kind == ActionKind::Handoff ||
          (one->kind == ActionKind::Done && !last)) {
        return fail(ErrorKind::InvalidArgument, "action " + std::to_string(i + 1) + " of the list is " +
                                                    std::string(to_string(one->kind)) + ", which a list cannot hold" +
                                                    (one->kind == ActionKind::Done ? " before its end" : "") +
                                                    ": ask and handoff alone, and done only last");
      }
      action.actions.push_back(std::move(*one));
    }
    return action;
  }
  if (has(reply, "select")) {
    action.kind = ActionKind::Select;
    VIMGPT_TRY(action.label, label_field(reply, "select"));
    if (!has(reply, "option")) return fail(ErrorKind::InvalidArgument, "\"select\" needs an \"option\" to choose");
    VIMGPT_TRY(action.text, string_field(reply, "option"));
    return action;
  }
  if (has(reply, "upload")) {
    action.kind = ActionKind::Upload;
    VIMGPT_TRY(action.label, label_field(reply, "upload"));
    if (!has(reply, "file")) {
      return fail(ErrorKind::InvalidArgument, "\"upload\" needs a \"file\": the name of one of the files offered");
    }
    VIMGPT_TRY(action.text, string_field(reply, "file"));
    return action;
  }
  if (has(reply, "tab")) {
    VIMGPT_TRY(action.tab, counting_number(reply, "tab", "the number of an open tab"));
    action.kind = ActionKind::SwitchTab;
    return action;
  }
  if (has(reply, "page")) {
    VIMGPT_TRY(action.page, counting_number(reply, "page", "the number of a page of the PDF shown"));
    action.kind = ActionKind::Page;
    return action;
  }
  if (has(reply, "close_tab")) {
    action.kind = ActionKind::CloseTab;
    return action;
  }
  for (const auto& [key, kind, needs] :
       {std::tuple{"ask", ActionKind::Ask, "the question to put to the user"},
        std::tuple{"handoff", ActionKind::Handoff, "what the person should do on the page, then press Resume"}}) {
    if (!reply.contains(key)) continue;
    action.kind = kind;
    if (has(reply, key)) {
      VIMGPT_TRY(action.text, string_field(reply, key));
    }
    if (trim(action.text).empty()) {
      return fail(ErrorKind::InvalidArgument, "\"" + std::string(key) + "\" needs " + needs);
    }
    action.text = std::string(trim(action.text));
    return action;
  }
  if (has(reply, "click_at")) {
    const auto& point = reply.at("click_at");
    action.kind = ActionKind::ClickAt;
    if (is_pointer(point)) {
      action.at_pointer = true;
      return action;
    }
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number()) {
      return fail(ErrorKind::InvalidArgument, "\"click_at\" must be [x, y] in pixels of the screenshot");
    }
    action.x = point[0].get<double>();
    action.y = point[1].get<double>();
    return action;
  }
  if (has(reply, "scroll")) {
    action.kind = ActionKind::Scroll;
    const std::string direction =
        reply.at("scroll").is_string() ? ascii_lower(reply.at("scroll").get<std::string>()) : "";
    if (direction != "down" && direction != "up") {
      return fail(ErrorKind::InvalidArgument, "\"scroll\" must be \"down\" or \"up\"");
    }
    action.direction = direction == "up" ? browser::ScrollDirection::Up : browser::ScrollDirection::Down;
    // "in": a label, or [x, y]: the wheel turned there scrolls what is under it.
    if (has(reply, "in") && reply.at("in").is_array()) {
      VIMGPT_TRY(auto point, point_field(reply.at("in"), "in"));
      std::tie(action.x, action.y) = point;
      action.in_point = true;
      return action;
    }
    VIMGPT_TRY(action.in, optional_label(reply, "in"));
    return action;
  }
  if (has(reply, "back")) {
    action.kind = ActionKind::Back;
    return action;
  }
  if (has(reply, "key")) {
    action.kind = ActionKind::Key;
    VIMGPT_TRY(std::string keys, string_field(reply, "key"));
    VIMGPT_TRY(browser::KeyPress press, browser::parse_keys(keys));
    action.text = browser::to_string(press);
    return action;
  }
  if (has(reply, "wait")) {
    const auto& seconds = reply.at("wait");
    if (!seconds.is_number() || seconds.get<double>() < 0 || seconds.get<double>() > 10) {
      return fail(ErrorKind::InvalidArgument, "\"wait\" must be a number of seconds from 0 to 10");
    }
    action.kind = ActionKind::Wait;
    action.seconds = seconds.get<double>();
    return action;
  }
  for (const auto& [key, kind] :
       {std::pair{"hover", ActionKind::Hover}, std::pair{"double_click", ActionKind::DoubleClick},
        std::pair{"triple_click", ActionKind::TripleClick}, std::pair{"right_click", ActionKind::RightClick}}) {
    if (!has(reply, key)) continue;
    action.kind = kind;
    // A label, or [x, y] in pixels of the frame (an open family's point, converted by the vision module), or where
    // the pointer rests (not for hover: it would not move).
    if (kind != ActionKind::Hover && is_pointer(reply.at(key))) {
      action.at_pointer = true;
      return action;
    }
    if (reply.at(key).is_array()) {
      VIMGPT_TRY(auto point, point_field(reply.at(key), key));
      std::tie(action.x, action.y) = point;
      return action;
    }
    VIMGPT_TRY(action.label, label_field(reply, key));
    return action;
  }
  if (has(reply, "drag")) {
    action.kind = ActionKind::Drag;
    if (is_pointer(reply.at("drag"))) {
      action.at_pointer = true;
    } else if (reply.at("drag").is_array()) {
      VIMGPT_TRY(auto from, point_field(reply.at("drag"), "drag"));
      std::tie(action.x, action.y) = from;
    } else {
      VIMGPT_TRY(action.label, label_field(reply, "drag"));
    }
    if (!has(reply, "to")) {
      return fail(ErrorKind::InvalidArgument, "\"drag\" needs \"to\": a label, or [x, y] in pixels of the screenshot");
    }
    if (reply.at("to").is_array()) {
      VIMGPT_TRY(auto to, point_field(reply.at("to"), "to"));
      std::tie(action.to_x, action.to_y) = to;
    } else {
      VIMGPT_TRY(action.to_label, label_field(reply, "to"));
    }
    return action;
  }
  if (has(reply, "zoom")) {
    const auto& box = reply.at("zoom");
    if (!box.is_array() || box.size() != 4 ||
        !std::all_of(box.begin(), box.end(), [](const Json& n) { return n.is_number(); })) {
      return fail(ErrorKind::InvalidArgument,
                  "\"zoom\" takes [x0, y0, x1, y1]: two corners of the region, in pixels of the screenshot");
    }
    action.kind = ActionKind::Zoom;
    action.x = std::min(box[0].get<double>(), box[2].get<double>());
    action.y = std::min(box[1].get<double>(), box[3].get<double>());
    action.to_x = std::max(box[0].get<double>(), box[2].get<double>());
    action.to_y = std::max(box[1].get<double>(), box[3].get<double>());
    if (action.to_x - action.x < 1 || action.to_y - action.y < 1) {
      return fail(ErrorKind::InvalidArgument, "\"zoom\"'s region has no area: give two opposite corners");
    }
    return action;
  }
  if (has(reply, "select_text")) {
    action.kind = ActionKind::SelectText;
    VIMGPT_TRY(action.text, text_field(reply, "select_text"));
    if (trim(action.text).empty()) return fail(ErrorKind::InvalidArgument, "\"select_text\" needs the words to select");
    VIMGPT_TRY(action.in, optional_label(reply, "in"));
    return action;
  }
  if (has(reply, "dialog")) {
    action.kind = ActionKind::Dialog;
    VIMGPT_TRY(std::string answer, string_field(reply, "dialog"));
    if (answer != "accept" && answer != "dismiss") {
      return fail(ErrorKind::InvalidArgument, "\"dialog\" must be \"accept\" or \"dismiss\"");
    }
    action.accept = answer == "accept";
    if (has(reply, "dialog_text")) {
      VIMGPT_TRY(action.text, text_field(reply, "dialog_text"));
      if (!action.accept) {
        return fail(ErrorKind::InvalidArgument,
                    "\"dialog_text\" answers a prompt: it goes with \"dialog\": \"accept\"");
      }
    }
    return action;
  }
  if (reply.empty()) return fail(ErrorKind::InvalidArgument, "the reply was an empty object: choose one action");
  std::string keys;
  for (const auto& [key, value] : reply.items()) keys += (keys.empty() ? "" : ", ") + key;
  return fail(ErrorKind::InvalidArgument,
              "no known action in the reply (keys: " + keys + "). " + vision::vocabulary_text());
}

std::optional<SecretPlaceholder> next_secret_placeholder(const std::string& text, std::size_t from) {
  constexpr std::string_view kOpen = "<secret:";
  const auto at = text.find(kOpen, from);
  const auto end = at == std::string::npos ? std::string::npos : text.find('>', at);
  if (end == std::string::npos) return std::nullopt;
  return SecretPlaceholder{at, end, text.substr(at + kOpen.size(), end - at - kOpen.size())};
}

namespace {

template <typename A, typename Label>
void collect_labels(A& action, std::vector<Label*>& labels) {
  if (action.kind == ActionKind::Actions) {
    for (auto& one : action.actions) collect_labels(one, labels);
    return;
  }
  for (Label* label : {&action.label, &action.in, &action.to_label}) {
    if (!label->empty()) labels.push_back(label);
  }
}

}  // namespace

std::vector<std::string*> labels_of(Action& action) {
  std::vector<std::string*> labels;
  collect_labels(action, labels);
  return labels;
}

std::vector<const std::string*> labels_of(const Action& action) {
  std::vector<const std::string*> labels;
  collect_labels(action, labels);
  return labels;
}

bool ends_done(const Action& action) {
  return action.kind == ActionKind::Done || (action.kind == ActionKind::Actions && !action.actions.empty() &&
                                             action.actions.back().kind == ActionKind::Done);
}

std::string answer_text(const Json& answer) {
  if (answer.is_string()) return answer.get<std::string>();
  return answer.is_null() ? "" : answer.dump();
}

Result<Observe> parse_observe(std::string_view name) {
  if (name == "vision") return Observe::Vision;
  if (name == "hybrid") return Observe::Hybrid;
  if (name == "text") return Observe::Text;
  return fail(ErrorKind::InvalidArgument, "--observe takes vision, hybrid or text, not '" + std::string(name) + "'");
}

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::Done: return "done";
    case Outcome::Error: return "error";
    case Outcome::BudgetExhausted: return "budget exhausted";
    case Outcome::Stuck: return "stuck";
    case Outcome::NeedsInput: return "needs_input";
    case Outcome::Interrupted: return "interrupted";
    case Outcome::Diverged: return "diverged";
    case Outcome::AnswerInvalid: return "answer_invalid";
    case Outcome::Unverified: return "unverified";
  }
  return "error";
}

int exit_code(Outcome outcome) {
  switch (outcome) {
    case Outcome::Done: return 0;
    case Outcome::Error: return 1;
    case Outcome::BudgetExhausted: return 2;
    case Outcome::Stuck: return 3;
    case Outcome::NeedsInput: return 4;
    case Outcome::Interrupted: return 130;
    case Outcome::Diverged: return 5;
    case Outcome::AnswerInvalid: return 6;
    case Outcome::Unverified: return 7;
  }
  return 1;
}

}  // namespace vimgpt::agent
