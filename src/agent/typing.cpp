// Typing as a person types: the keys into what has the focus, secrets put in at the last moment (and only on their
// sites), Enter when the form is ready, and what the keys changed said plainly.
#include <chrono>

#include "agent/agent.h"
#include "common/text.h"
#include "common/totp.h"
#include "common/url.h"

namespace vimgpt::agent {
namespace {

// Replaces <secret:NAME> with its value at the last moment, so values never reach the model or a record; a
// one-time-code key with the code for now.
Result<std::string> with_secrets(std::string text, const std::map<std::string, std::string>& secrets) {
  std::size_t at = 0;
  while (const auto placeholder = next_secret_placeholder(text, at)) {
    at = placeholder->at;
    const auto end = placeholder->end;
    const std::string& name = placeholder->name;
    const auto it = secrets.find(name);
    if (it == secrets.end()) return fail(ErrorKind::NotFound, "there is no secret named " + name);
    std::string value = it->second;
    if (is_totp(value)) {
      VIMGPT_TRY(std::string key, totp_key(value));
      const auto now = std::chrono::system_clock::now().time_since_epoch();
      value = totp_code(key, std::chrono::duration_cast<std::chrono::seconds>(now).count());
    }
    text.replace(at, end - at + 1, value);
    at += value.size();
  }
  return text;
}

// The address of the document keys would go to now: the page's, or that of the frame holding the focus (a
// same-origin frame read from the page; a cross-origin one is the frame whose document has the focus and passes it to
// no frame of its own). Empty when it cannot be told.
std::string focused_document_url(browser::Tab& tab) {
  auto top = tab.evaluate(
      "(() => { let d = document, url = location.href;"
      " while (d.activeElement && /^(IFRAME|FRAME)$/.test(d.activeElement.tagName)) {"
      " const inner = d.activeElement.contentDocument; if (!inner) return {url, away: true};"
      " d = inner; url = d.location.href; } return {url, away: false}; })()");
  if (!top || !top->is_object()) return "";
  if (!top->value("away", false)) return top->value("url", "");
  const auto frame = hints::focused_frame(tab);
  if (!frame) return "";
  auto url = tab.evaluate_in_frame(*frame, "location.href");
  return url && url->is_string() ? url->get<std::string>() : "";
}

std::string count_text(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A value of each date-like input type, in the field's own format.
std::string date_example(const std::string& type) {
  if (type == "time") return "13:45";
  if (type == "month") return "2011-12";
  if (type == "week") return "2011-W50";
  if (type == "datetime-local") return "2011-12-15T13:45";
  return "2011-12-15";
}

}  // namespace

// Types into what has the focus as a person types, then presses Enter as the seed does, unless the form would be
// submitted with other fields still empty (a person fills the password first) or the model said otherwise. A
// focused drop-down gets the option the text names instead. With nothing focused the keys go to the page, as a
// person's would (a terminal or a game reads them there). Afterwards it says what the keys changed: a step whose
// typing changed nothing is not "ok".
ActResult Actor::type_into_focus(const std::string& text, Enter enter) {
  auto value = with_secrets(text, options_.secrets);
  if (!value) return failed(value.error());
  if (auto refused = secret_refusal(text)) return {false, *refused, std::nullopt};
  // A secret's value never reaches the hint script, so it is planned as typed (it is no date).
  auto target = hints::start_typing(tab_, *value != text ? std::string_view() : std::string_view(text));
  if (!target) return failed(target.error());
  if (target->field.kind == hints::FocusKind::Choice) {
    auto chosen = hints::select_focused_option(tab_, text);
    if (!chosen) return failed(chosen.error());
    return {true, "selected \"" + chosen->selected + "\"", std::nullopt};
  }
  if (*value != text) {
    if (target->field.kind == hints::FocusKind::None) {
      return {false, "nothing focused to type the secret into: click its field first", std::nullopt};
    }
    // The field will show the value unless the page masks it: every later frame paints it over.
    if (auto marked = hints::mark_secret_field(tab_); !marked) return failed(marked.error());
  }
  const std::uint64_t generation = tab_.page_generation();
  auto typed = hints::type_keys(tab_, *target, *value);
  if (!typed) return failed(typed.error());
  // A secret's placeholder as the model wrote it: its length is the placeholder's, not what was typed.
  std::string message = "typed " + (*value != text ? text : count_text(utf8_length(text), "character", "characters"));
  if (target->field.kind == hints::FocusKind::None && !target->read_only) {
    message += " to the page (nothing had the focus)";
  }
  const auto& empty = target->field.empty_fields;
  if (enter == Enter::Skip) {
    message += "; did not press Enter (\"enter\": false)";
  } else if (enter == Enter::Auto && !empty.empty()) {
    std::string names;
    for (const auto& name : empty) names += (names.empty() ? "" : ", ") + name;
    message += "; did not press Enter: " + count_text(empty.size(), "empty field", "empty fields") +
               " left in this form (" + names + ")";
  } else {
    if (auto entered = tab_.press_key(browser::Key::Enter); !entered) return failed(entered.error());
    message += " and pressed Enter";
  }
  auto effect = hints::finish_typing(tab_, *target, generation);
  if (!effect) return failed(effect.error());
  return typed_result(*target, *effect, message);
}

// Why a secret bound to hosts (--secret NAME@HOST=...) in `text` may not be typed where the focus is, if it may not.
std::optional<std::string> Actor::secret_refusal(const std::string& text) {
  std::optional<std::string> url;
  for (auto placeholder = next_secret_placeholder(text, 0); placeholder;
       placeholder = next_secret_placeholder(text, placeholder->end)) {
    const std::string& name = placeholder->name;
    const auto sites = options_.secret_sites.find(name);
    if (sites == options_.secret_sites.end()) continue;
    if (!url) url = focused_document_url(tab_);
    if (!url->empty() && !sites->second.refusal(*url)) continue;
    std::string why = "refused to type <secret:";
    why += name;
    why += url->empty() ? ">" : "> on " + url_host(*url);
    why += ": it is only for ";
    why += sites->second.allowed_text();
    why += url->empty() ? ", and the focused field's site could not be told; nothing was typed" : "; nothing was typed";
    return why;
  }
  return std::nullopt;
}

// What the keys did, for the model: said plainly when they changed nothing, or did not fill a date-like field.
ActResult Actor::typed_result(const hints::KeysTarget& target, const hints::TypingEffect& effect,
                              const std::string& message) {
  if (!target.input_type.empty()) {
    if (effect.set_by_script) {
      return {true,
              message + "; the " + target.input_type + " field did not take the keys, so its value was set to " +
                  effect.date_value + " directly",
              std::nullopt};
    }
    if (effect.date_value.empty()) {
      return {false,
              message + "; but the " + target.input_type + " field is still empty: write the " + target.input_type +
                  " as the field's own value (" + date_example(target.input_type) + ") or as the field shows it",
              std::nullopt};
    }
    return {true, message + "; the " + target.input_type + " field now holds " + effect.date_value, std::nullopt};
  }
  if (effect.value_changed || effect.page_changed || effect.focus_moved) return {true, message, std::nullopt};
  if (target.in_frame && !target.frame) {
    return {true,
            message +
                "; the keys went into a frame of another site whose field could not be read: whether it took them "
                "is not known",
            std::nullopt};
  }
  const std::string why =
      target.read_only ? "the focused field is read-only (such a field is filled by what its click opens, such as a "
                         "calendar): choose there, or click another field"
      : target.field.kind == hints::FocusKind::None
          ? "nothing had the focus and nothing on the page reads keys there: click a text field first"
          : "the focused element did not take them (it may be full, or not a place to type): click another field";
  return {false, message + "; but nothing on the page changed: " + why, std::nullopt};
}

}  // namespace vimgpt::agent
