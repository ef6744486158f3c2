// Acting on a label: find the element again in its world, bring it into view, click a point of it that
// nothing covers with trusted input, and finish the way a person's click would (caret at the end of a
// text field; a <select>'s options listed for the next step).
#include <string>

#include "hints/acting.h"
#include "hints/hint_script.h"

namespace vimgpt::hints {

using detail::check_reply;
using detail::element_args;
using detail::in_main_viewport;
using detail::locate;
using detail::resolve;

using browser::Json;

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::vector<SelectOption> options_of(const Json& reply) {
  std::vector<SelectOption> out;
  if (!reply.contains("options")) return out;
  for (const auto& o : reply["options"])
    out.push_back({o.value("text", ""), o.value("value", ""), o.value("selected", false), o.value("disabled", false)});
  return out;
}

// How long an ARIA drop-down that was just clicked may take to show its options.
constexpr int kOptionsWaitMs = 1500;

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "\"" : ", \"") + item + "\"";
  return out;
}

// A choose() answer: the option chosen (a <select>'s), to be clicked (an ARIA one's), or why none was.
Result<ActionOutcome> chosen_option(browser::Tab& tab, const Json& chosen, const Hint* hint,
                                    std::string_view option_text) {
  ActionOutcome outcome;
  if (hint != nullptr) outcome.hint = *hint;
  outcome.options = options_of(chosen);
  const std::string error = chosen.value("error", "");
  const std::string where = hint != nullptr ? "the drop-down labelled " + hint->label : "the focused drop-down";
  std::vector<std::string> texts;
  for (const auto& o : outcome.options) texts.push_back(o.text);
  if (error == "no-option") {
    return fail(ErrorKind::NotFound,
                where + " has no option \"" + std::string(option_text) + "\"; its options: " + quoted_list(texts));
  }
  if (error == "ambiguous") {
    return fail(ErrorKind::NotFound, "several options of " + where + " match \"" + std::string(option_text) +
                                         "\": " + quoted_list(chosen.value("candidates", std::vector<std::string>{})) +
                                         "; give the whole text of one");
  }
  if (error == "no-options") return fail(ErrorKind::NotFound, where + " shows no options, even after a click");
  if (error == "covered") {
    return fail(ErrorKind::NotFound,
                "the option \"" + chosen.value("selected", "") + "\" of " + where + " is covered or not visible");
  }
  if (error == "not-select") return fail(ErrorKind::InvalidArgument, where + " is not a drop-down");
  if (chosen.contains("x")) {
    bool scrolled = false;
    browser::Point point{chosen["x"].get<double>(), chosen["y"].get<double>()};
    if (hint != nullptr) {
      VIMGPT_TRY(point, in_main_viewport(tab, *hint, point, scrolled));
    }
    VIMGPT_TRY_VOID(tab.click(point));
    outcome.point = point;
  }
  outcome.effect = Effect::OptionSelected;
  outcome.selected = chosen.value("selected", "");
  return outcome;
}

}  // namespace

namespace detail {

Result<const Hint*> resolve(const HintMap& map, std::string_view label) {
  if (const Hint* hint = map.find(label)) return hint;
  std::string upper = normalize_label(label);
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (map.empty()) return fail(ErrorKind::NotFound, "no hint labelled \"" + upper + "\": this page has no hints");
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

browser::Json element_args(const HintMap& map, const Hint& hint) {
  return {{"pass", map.pass()}, {"index", hint.index}};
}

Result<browser::Point> in_main_viewport(browser::Tab& tab, const Hint& hint, browser::Point point, bool& scrolled) {
  if (hint.frame_session.empty()) return point;
  VIMGPT_TRY(browser::FrameBox box, tab.frame_box(hint.frame_id));
  const auto& viewport = tab.viewport();
  auto inside = [&](const browser::FrameBox& b) {
    const double x = b.x + point.x, y = b.y + point.y;
    return x >= 0 && y >= 0 && x < viewport.width && y < viewport.height;
  };
  if (!inside(box)) {
    VIMGPT_TRY_VOID(tab.scroll_frame_into_view(hint.frame_id));
    VIMGPT_TRY(box, tab.frame_box(hint.frame_id));
    scrolled = true;
  }
  return browser::Point{point.x + box.x, point.y + box.y};
}

Result<browser::Json> locate(browser::Tab& tab, const HintMap& map, const Hint& hint, browser::Point& point) {
  VIMGPT_TRY(Json where, detail::call_library(detail::evaluator_for(tab, hint), "locate", element_args(map, hint)));
  VIMGPT_TRY_VOID(check_reply(where, hint));
  if (where["x"].is_null())
    return fail(ErrorKind::NotFound,
                "the element labelled " + hint.label + " is covered or not visible, even after scrolling it into view");
  bool scrolled = where.value("scrolled", false);
  VIMGPT_TRY(point, in_main_viewport(tab, hint, {where["x"].get<double>(), where["y"].get<double>()}, scrolled));
  where["scrolled"] = scrolled;
  return where;
}

}  // namespace detail

Result<ActionOutcome> click_label(browser::Tab& tab, const HintMap& map, std::string_view label) {
  VIMGPT_TRY(const Hint* hint, resolve(map, label));
  ActionOutcome outcome;
  outcome.hint = *hint;
  VIMGPT_TRY(Json where, locate(tab, map, *hint, outcome.point));
  outcome.scrolled = where.value("scrolled", false);
  const std::string kind = where.value("kind", "click");
  if (kind == "select" || kind == "choice") {
    // A click would open Chromium's native popup for a <select>, which swallows the next input: focus it and
    // list its options instead. An ARIA drop-down is clicked open, as a person would, and its options read.
    if (kind == "choice") VIMGPT_TRY_VOID(tab.click(outcome.point));
    Json args = element_args(map, *hint);
    args["wait"] = kind == "choice" ? kOptionsWaitMs : 0;
    VIMGPT_TRY(Json listed, detail::call_library(detail::evaluator_for(tab, *hint), "options", args));
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
  const auto evaluate = detail::evaluator_for(tab, *hint);
  Json args = element_args(map, *hint);
  args["option"] = std::string(option_text);
  VIMGPT_TRY(Json chosen, detail::call_library(evaluate, "choose", args));
  VIMGPT_TRY_VOID(check_reply(chosen, *hint));
  if (chosen.value("error", "") == "no-options") {
    // A closed ARIA drop-down: open it as a person would, then choose once its options show.
    browser::Point point;
    VIMGPT_TRY(Json where, locate(tab, map, *hint, point));
    (void)where;
    VIMGPT_TRY_VOID(tab.click(point));
    args["wait"] = kOptionsWaitMs;
    VIMGPT_TRY(chosen, detail::call_library(evaluate, "choose", args));
    VIMGPT_TRY_VOID(check_reply(chosen, *hint));
  }
  return chosen_option(tab, chosen, hint, option_text);
}

Result<ActionOutcome> select_focused_option(browser::Tab& tab, std::string_view option_text) {
  const detail::Evaluator evaluate = [&tab](const std::string& expression) { return tab.evaluate(expression); };
  VIMGPT_TRY(Json chosen,
             detail::call_library(evaluate, "choose", {{"focused", true}, {"option", std::string(option_text)}}));
  if (!chosen.is_object()) return fail(ErrorKind::Protocol, "the hint script gave no answer for the focused field");
  return chosen_option(tab, chosen, nullptr, option_text);
}

Result<std::string> visible_text(browser::Tab& tab, std::size_t max_chars) {
  const detail::Evaluator evaluate = [&tab](const std::string& expression) { return tab.evaluate(expression); };
  VIMGPT_TRY(Json seen, detail::call_library(evaluate, "visibleText", Json{{"max", max_chars}}));
  if (!seen.is_object()) return fail(ErrorKind::Protocol, "the hint script gave no answer for the page's text");
  std::string text = seen.value("text", "");
  if (seen.value("cut", false)) text += "\n[... the rest of the visible text was left out]";
  return text;
}

Result<ActionOutcome> upload_files(browser::Tab& tab, const HintMap& map, std::string_view label,
                                   const std::vector<std::string>& files, std::chrono::milliseconds cap) {
  VIMGPT_TRY(const Hint* hint, resolve(map, label));
  ActionOutcome outcome;
  outcome.hint = *hint;
  VIMGPT_TRY(Json where, locate(tab, map, *hint, outcome.point));
  outcome.scrolled = where.value("scrolled", false);
  if (auto chosen = tab.click_to_choose_files(outcome.point, files, cap); !chosen) {
    if (chosen.error().kind != ErrorKind::NotFound) return chosen.failure();
    return fail(ErrorKind::NotFound, "clicking " + hint->label + " (" + hint->role + " \"" + hint->text +
                                         "\") opened no file chooser: give the label of a file input, or of the "
                                         "button that opens one");
  }
  outcome.effect = Effect::FilesChosen;
  return outcome;
}

}  // namespace vimgpt::hints
