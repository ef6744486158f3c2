// Acting on a label: find the element again in its world, bring it into view, click a point of it that
// nothing covers with trusted input, and finish the way a person's click would (caret at the end of a
// text field; a <select>'s options listed for the next step).
#include <string>

#include "hints/frames.h"
#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using cdp::Json;

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

Result<const Hint*> resolve(const HintMap& map, std::string_view label) {
  if (const Hint* hint = map.find(label)) return hint;
  const std::string wanted = normalize_label(label);
  if (map.empty()) return fail(ErrorKind::NotFound, "no hint labelled \"" + wanted + "\": this page has no hints");
  std::string upper = wanted;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return fail(ErrorKind::NotFound, "no hint labelled \"" + upper + "\"; labels near it: " + join(map.near(label)) +
                                       " (" + std::to_string(map.size()) + " labels on this page)");
}

Status check_reply(const Json& reply, const Hint& hint) {
  if (!reply.is_object()) return fail(ErrorKind::Protocol, "the hint script gave no answer for " + hint.label);
  const std::string error = reply.value("error", "");
  if (error == "stale" || error == "gone")
    return fail(ErrorKind::NotFound, "the element labelled " + hint.label + " (" + hint.role + " \"" + hint.text +
                                         "\") is no longer on the page; capture the hints again");
  if (error == "not-select")
    return fail(ErrorKind::InvalidArgument,
                "the element labelled " + hint.label + " is a " + hint.tag + ", not a <select>");
  return ok();
}

Json element_args(const HintMap& map, const Hint& hint) {
  return {{"pass", map.pass()}, {"index", hint.index}};
}

std::vector<SelectOption> options_of(const Json& reply) {
  std::vector<SelectOption> out;
  if (!reply.contains("options")) return out;
  for (const auto& o : reply["options"])
    out.push_back({o.value("text", ""), o.value("value", ""), o.value("selected", false), o.value("disabled", false)});
  return out;
}

// Where the element can be clicked, in main-viewport CSS px. For an element in an out-of-process frame the
// frame-local point is moved by the owner's box; a frame scrolled out of the main viewport is scrolled in.
Result<Json> locate(browser::Tab& tab, const HintMap& map, const Hint& hint, browser::Point& point) {
  VIMGPT_TRY(Json where, detail::call_library(detail::evaluator_for(tab, hint), "locate", element_args(map, hint)));
  VIMGPT_TRY_VOID(check_reply(where, hint));
  if (where["x"].is_null())
    return fail(ErrorKind::NotFound,
                "the element labelled " + hint.label + " is covered or not visible, even after scrolling it into view");
  point = {where["x"].get<double>(), where["y"].get<double>()};
  if (hint.frame_session.empty()) return where;
  VIMGPT_TRY(detail::FrameBox box, detail::frame_box(tab, hint.frame_id));
  const auto& viewport = tab.viewport();
  auto inside = [&](const detail::FrameBox& b) {
    const double x = b.x + point.x, y = b.y + point.y;
    return x >= 0 && y >= 0 && x < viewport.width && y < viewport.height;
  };
  if (!inside(box)) {
    auto& connection = tab.connection();
    VIMGPT_TRY(Json scrolled, connection.call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", box.owner_backend_node}},
                                              box.owner_session.empty() ? tab.session_id() : box.owner_session));
    (void)scrolled;
    VIMGPT_TRY(box, detail::frame_box(tab, hint.frame_id));
    where["scrolled"] = true;
  }
  point = {point.x + box.x, point.y + box.y};
  return where;
}

}  // namespace

Result<ActionOutcome> click_label(browser::Tab& tab, const HintMap& map, std::string_view label) {
  VIMGPT_TRY(const Hint* hint, resolve(map, label));
  ActionOutcome outcome;
  outcome.hint = *hint;
  VIMGPT_TRY(Json where, locate(tab, map, *hint, outcome.point));
  outcome.scrolled = where.value("scrolled", false);
  const std::string kind = where.value("kind", "click");
  if (kind == "select") {
    // A click would open Chromium's native popup, which swallows the next input; focus and list instead.
    VIMGPT_TRY(Json listed,
               detail::call_library(detail::evaluator_for(tab, *hint), "options", element_args(map, *hint)));
    VIMGPT_TRY_VOID(check_reply(listed, *hint));
    outcome.effect = Effect::OptionsListed;
    outcome.options = options_of(listed);
    return outcome;
  }
  VIMGPT_TRY_VOID(tab.click(outcome.point));
  if (kind == "text") {
    VIMGPT_TRY(Json caret,
               detail::call_library(detail::evaluator_for(tab, *hint), "caretToEnd", element_args(map, *hint)));
    VIMGPT_TRY_VOID(check_reply(caret, *hint));
    outcome.effect = Effect::Focused;
  }
  return outcome;
}

Result<ActionOutcome> select_option(browser::Tab& tab, const HintMap& map, std::string_view label,
                                    std::string_view option_text) {
  VIMGPT_TRY(const Hint* hint, resolve(map, label));
  Json args = element_args(map, *hint);
  args["option"] = std::string(option_text);
  VIMGPT_TRY(Json chosen, detail::call_library(detail::evaluator_for(tab, *hint), "choose", args));
  VIMGPT_TRY_VOID(check_reply(chosen, *hint));
  ActionOutcome outcome;
  outcome.hint = *hint;
  outcome.options = options_of(chosen);
  if (chosen.value("error", "") == "no-option") {
    std::string available;
    for (const auto& o : outcome.options) available += (available.empty() ? "\"" : ", \"") + o.text + "\"";
    return fail(ErrorKind::NotFound, "the select labelled " + hint->label + " has no option \"" +
                                         std::string(option_text) + "\"; its options: " + available);
  }
  outcome.effect = Effect::OptionSelected;
  outcome.selected = chosen.value("selected", "");
  return outcome;
}

}  // namespace vimgpt::hints
