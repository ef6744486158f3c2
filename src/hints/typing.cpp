// Typing as a person types: a key press per character (what date fields, one-time-code boxes, editors and
// terminals listen for), a date-like field's segments in the order its locale shows them, and afterwards what the
// keys changed, so a step that typed into nothing says so.
#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using browser::Json;

namespace {

// Shorter texts are typed key by key whatever listens: asking the page who listens costs about what they do.
constexpr std::size_t kAtOnceFrom = 32;

detail::Evaluator main_frame(browser::Tab& tab) {
  return [&tab](const std::string& expression) { return tab.evaluate(expression); };
}

// Where the focused field is watched: the page's world, or that of the cross-origin frame holding it.
detail::Evaluator watched_world(browser::Tab& tab, const KeysTarget& target) {
  if (!target.frame) return main_frame(tab);
  return
      [&tab, frame = *target.frame](const std::string& expression) { return tab.evaluate_in_frame(frame, expression); };
}

KeysTarget keys_target(const Json& start) {
  KeysTarget target;
  const std::string kind = start.value("kind", "none");
  target.field.kind = kind == "text" ? FocusKind::Text : kind == "choice" ? FocusKind::Choice : FocusKind::None;
  target.field.empty_fields = start.value("empty", std::vector<std::string>{});
  target.input_type = start.value("type", "");
  target.in_frame = start.value("frame", false);
  target.read_only = start.value("readOnly", false);
  if (start.contains("path")) target.path = start["path"];
  if (start.contains("plan") && start["plan"].is_object()) {
    target.segments = start["plan"].value("segments", Json::array());
    target.date_value = start["plan"].value("value", "");
  }
  return target;
}

// Whether anything in the page's own world listens for keys or input where the text goes: the element, its
// ancestors (through shadow hosts), its document and window. Only Chromium can say (DevTools' getEventListeners);
// anywhere else, or when the page hides that function, the answer is "maybe".
bool listened_to(browser::Tab& tab, const Json& path) {
  static const Json kTypes = {
      "keydown",          "keypress",          "keyup",         "beforeinput", "input", "textInput",
      "compositionstart", "compositionupdate", "compositionend"};
  auto answer = tab.evaluate_with_command_line_api(detail::main_world_key_listener_check(path, kTypes));
  return !answer || *answer != false;
}

}  // namespace

std::optional<browser::ChildFrame> focused_frame(browser::Tab& tab) {
  for (auto& frame : tab.child_frames()) {
    auto focused = tab.evaluate_in_frame(
        frame, "document.hasFocus() && !/^(IFRAME|FRAME)$/.test((document.activeElement || {}).tagName)");
    if (focused && *focused == true) return frame;
  }
  return std::nullopt;
}

Result<KeysTarget> start_typing(browser::Tab& tab, std::string_view text) {
  const Json args = {{"text", std::string(text)}};
  VIMGPT_TRY(Json start, detail::call_library(main_frame(tab), "typingStart", args));
  if (!start.is_object()) return fail(ErrorKind::Protocol, "the hint script gave no answer for the focused field");
  KeysTarget target = keys_target(start);
  if (!target.in_frame) return target;
  // The focus is in a cross-origin frame: the field, and afterwards what the keys did, are read in the frame's world.
  KeysTarget framed;
  framed.frame = focused_frame(tab);
  if (!framed.frame) return target;
  VIMGPT_TRY(Json inner, detail::call_library(watched_world(tab, framed), "typingStart", args));
  if (!inner.is_object()) return target;
  KeysTarget read = keys_target(inner);
  read.in_frame = true;
  read.frame = std::move(framed.frame);
  return read;
}

Result<TypedHow> type_keys(browser::Tab& tab, const KeysTarget& target, std::string_view text) {
  if (!target.date_value.empty()) {
    for (const auto& segment : target.segments) {
      VIMGPT_TRY_VOID(tab.type_text(segment.value("keys", "")));
      if (segment.value("advance", false)) VIMGPT_TRY_VOID(tab.press_key(browser::Key::ArrowRight));
    }
    return TypedHow::Segments;
  }
  if (target.field.kind == FocusKind::Text && target.input_type.empty() && !target.in_frame &&
      text.size() >= kAtOnceFrom && !target.path.is_null() && !listened_to(tab, target.path)) {
    VIMGPT_TRY_VOID(tab.type_text(text, browser::Typing::Insert));
    return TypedHow::AtOnce;
  }
  VIMGPT_TRY_VOID(tab.type_text(text));
  return TypedHow::Keys;
}

Result<TypingEffect> finish_typing(browser::Tab& tab, const KeysTarget& target, std::uint64_t generation) {
  TypingEffect effect;
  if (tab.page_generation() != generation) {
    effect.page_changed = true;  // a new document: the old one's watch went with it
    return effect;
  }
  const auto world = watched_world(tab, target);
  VIMGPT_TRY(Json end, detail::call_library(world, "typingEnd", Json::object()));
  if (!end.is_object() || end.value("lost", false)) {
    effect.page_changed = true;  // the document was replaced in place
    return effect;
  }
  effect.value_changed = end.value("valueChanged", false);
  effect.page_changed = end.value("mutated", false);
  if (target.frame) {
    // The page around the frame was watched too (a frame's form may change its parent): its watch ends here.
    VIMGPT_TRY(Json page, detail::call_library(main_frame(tab), "typingEnd", Json::object()));
    effect.page_changed =
        effect.page_changed || !page.is_object() || page.value("lost", false) || page.value("mutated", false);
  }
  effect.focus_moved = end.value("focusMoved", false);
  effect.date_value = end.value("value", "");
  if (!target.date_value.empty() && effect.date_value != target.date_value) {
    VIMGPT_TRY(Json set, detail::call_library(world, "setTypedValue", {{"value", target.date_value}}));
    if (set.is_object() && set.value("set", false)) {
      effect.set_by_script = true;
      effect.value_changed = true;
      effect.date_value = set.value("value", "");
    }
  }
  return effect;
}

}  // namespace vimgpt::hints
