// What a person's hands do beyond a click: point at an element and rest there, click it with another button
// or twice, turn the wheel over it, drag across words to select them; and whether what was acted on is still
// in view afterwards.
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

#include "hints/acting.h"

namespace vimgpt::hints {

using browser::Json;
using detail::check_reply;
using detail::element_args;

namespace {

// How long a wheel's scrolling may take to come to rest (smooth scrolling animates it).
constexpr std::chrono::milliseconds kScrollSettleCap{800};
constexpr std::chrono::milliseconds kScrollLook{30};

// What `look` reads once the wheel's scrolling has come to rest: two looks in a row see the same, or the cap passed
// (smooth scrolling moves the content over a few frames).
Result<Json> at_rest(const std::function<Result<Json>()>& look) {
  VIMGPT_TRY(Json last, look());
  const auto until = std::chrono::steady_clock::now() + kScrollSettleCap;
  for (int still = 0; still < 2 && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(kScrollLook);
    VIMGPT_TRY(Json now, look());
    still = now == last ? still + 1 : 0;
    last = std::move(now);
  }
  return last;
}

// The wheel's turn for an element `height` CSS px tall: most of what it shows, as a person's few notches would.
double wheel_turn(browser::ScrollDirection direction, double height) {
  return (direction == browser::ScrollDirection::Down ? 1 : -1) * std::max(40.0, height * 0.8);
}

}  // namespace

Result<PointedAt> point_at(browser::Tab& tab, const HintMap& map, std::string_view label) {
  VIMGPT_TRY(const Hint* hint, detail::resolve(map, label));
  PointedAt at;
  at.hint = *hint;
  VIMGPT_TRY(Json where, detail::locate(tab, map, *hint, at.point));
  at.scrolled = where.value("scrolled", false);
  return at;
}

Result<PointedAt> click_label_with(browser::Tab& tab, const HintMap& map, std::string_view label,
                                   browser::MouseButton button, int clicks) {
  VIMGPT_TRY(PointedAt at, point_at(tab, map, label));
  VIMGPT_TRY_VOID(tab.click(at.point, button, clicks));
  return at;
}

Result<PointedAt> hover_label(browser::Tab& tab, const HintMap& map, std::string_view label) {
  VIMGPT_TRY(PointedAt at, point_at(tab, map, label));
  VIMGPT_TRY_VOID(tab.move_mouse(at.point));
  return at;
}

Result<ScrollOutcome> scroll_label(browser::Tab& tab, const HintMap& map, std::string_view label,
                                   browser::ScrollDirection direction) {
  VIMGPT_TRY(PointedAt at, point_at(tab, map, label));
  const auto evaluate = detail::evaluator_for(tab, at.hint);
  const auto state = [&]() -> Result<Json> {
    VIMGPT_TRY(Json now, detail::call_library(evaluate, "scrollState", element_args(map, at.hint)));
    VIMGPT_TRY_VOID(check_reply(now, at.hint));
    return now;
  };
  VIMGPT_TRY(Json before, state());
  ScrollOutcome outcome;
  outcome.hint = at.hint;
  outcome.point = at.point;
  outcome.what = at.hint.role + " \"" + at.hint.text + "\"";
  const std::string what = "the element labelled " + at.hint.label + " (" + at.hint.role + " \"" + at.hint.text + "\")";
  if (before["top"].is_null()) {
    outcome.measurable = false;
  } else if (!before.value("scrolls", false)) {
    return fail(ErrorKind::InvalidArgument, what +
                                                " does not scroll: it is not a list, panel or frame with more "
                                                "in it than it shows (scroll the page with {\"scroll\": ...} alone)");
  }
  VIMGPT_TRY_VOID(tab.wheel(at.point, 0, wheel_turn(direction, before.value("height", 400.0))));
  if (!outcome.measurable) return outcome;
  VIMGPT_TRY(Json after, at_rest(state));
  const double start = before["top"].get<double>();
  const double last = after.value("top", start);
  outcome.moved = last - start;
  if (std::abs(outcome.moved) < 0.5) {
    return fail(ErrorKind::InvalidArgument, what + " did not move: it is already at its " +
                                                (direction == browser::ScrollDirection::Down ? "end" : "top"));
  }
  return outcome;
}

Result<ScrollOutcome> scroll_at(browser::Tab& tab, browser::Point point, browser::ScrollDirection direction) {
  const detail::Evaluator evaluate([&tab](const std::string& e) { return tab.evaluate(e); });
  VIMGPT_TRY(Json before, detail::call_library(evaluate, "scrollablesAt", {{"x", point.x}, {"y", point.y}}));
  const Json& names = before["names"];
  const Json& tops = before["tops"];
  if (!names.is_array() || !tops.is_array() || names.empty() || names.size() != tops.size()) {
    return fail(ErrorKind::Protocol, "the page answered what is under the point with " + before.dump());
  }
  ScrollOutcome outcome;
  outcome.point = point;
  const std::string where =
      "(" + std::to_string(static_cast<int>(point.x)) + ", " + std::to_string(static_cast<int>(point.y)) + ")";
  VIMGPT_TRY_VOID(tab.wheel(point, 0, wheel_turn(direction, before.value("height", 400.0))));
  if (before.value("frame", false)) {
    outcome.what = "the frame at " + where;
    outcome.measurable = false;
    return outcome;
  }
  VIMGPT_TRY(Json after, at_rest([&] { return detail::call_library(evaluate, "scrolledAt", Json::object()); }));
  const Json& now = after["tops"];
  // The innermost that moved: the wheel goes to what can still scroll that way, as under a person's mouse.
  for (std::size_t i = 0; i < tops.size() && i < now.size(); ++i) {
    if (!tops[i].is_number() || !now[i].is_number()) continue;
    const double moved = now[i].get<double>() - tops[i].get<double>();
    if (std::abs(moved) < 0.5) continue;
    outcome.moved = moved;
    outcome.what = names[i].is_string() ? names[i].get<std::string>() : "the page";
    return outcome;
  }
  const std::string innermost = names[0].is_string() ? names[0].get<std::string>() : "the page";
  return fail(ErrorKind::InvalidArgument, "the wheel turned at " + where + " and nothing moved: " + innermost +
                                              (names.size() > 1 ? " and what holds it are" : " is") +
                                              " already at the " +
                                              (direction == browser::ScrollDirection::Down ? "end" : "top"));
}

Result<WordsSelected> select_words(browser::Tab& tab, const HintMap& map, std::string_view words,
                                   std::string_view label) {
  if (words.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return fail(ErrorKind::InvalidArgument, "\"select_text\" needs the words to select");
  }
  Json args = {{"text", std::string(words)}};
  const Hint* hint = nullptr;
  if (!label.empty()) {
    VIMGPT_TRY(hint, detail::resolve(map, label));
    args.update(element_args(map, *hint));
  }
  const detail::Evaluator evaluate = hint != nullptr
                                         ? detail::evaluator_for(tab, *hint)
                                         : detail::Evaluator([&tab](const std::string& e) { return tab.evaluate(e); });
  VIMGPT_TRY(Json found, detail::call_library(evaluate, "wordsAt", args));
  if (hint != nullptr) VIMGPT_TRY_VOID(check_reply(found, *hint));
  const std::string error = found.value("error", "");
  const std::string where = hint != nullptr ? " in the element labelled " + hint->label : " on the page";
  if (error == "no-text") {
    return fail(ErrorKind::NotFound, "the words \"" + std::string(words) + "\" are not" + where +
                                         "; give words exactly as the page shows them");
  }
  if (error == "not-visible" || !found.contains("from")) {
    return fail(ErrorKind::NotFound, "the words \"" + std::string(words) + "\" are" + where + " but not visible");
  }
  bool scrolled = false;
  browser::Point from{found["from"][0].get<double>(), found["from"][1].get<double>()};
  browser::Point to{found["to"][0].get<double>(), found["to"][1].get<double>()};
  if (hint != nullptr) {
    VIMGPT_TRY(from, detail::in_main_viewport(tab, *hint, from, scrolled));
    VIMGPT_TRY(to, detail::in_main_viewport(tab, *hint, to, scrolled));
  }
  VIMGPT_TRY(bool html_drag, tab.drag(from, to, 8));
  (void)html_drag;  // words inside a draggable element start no drag: a press on text that is not selected
  const std::string wanted = found.value("text", "");
  VIMGPT_TRY(Json now, detail::call_library(evaluate, "selection", Json::object()));
  WordsSelected selected{now.value("text", ""), true};
  const auto squashed = [](const std::string& text) {
    std::string out;
    for (const char c : text) {
      if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c;
      }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  if (squashed(selected.selected) != squashed(wanted)) {
    VIMGPT_TRY(now, detail::call_library(evaluate, "selection", Json{{"exact", true}}));
    selected = {now.value("text", ""), false};
  }
  return selected;
}

Result<bool> still_in_view(browser::Tab& tab, const HintMap& map, const Hint& hint) {
  VIMGPT_TRY(Json seen, detail::call_library(detail::evaluator_for(tab, hint), "uncovered", element_args(map, hint)));
  if (!seen.is_object()) return fail(ErrorKind::Protocol, "the hint script gave no answer for " + hint.label);
  if (seen.value("gone", false)) return false;
  return seen.value("visible", false);
}

}  // namespace vimgpt::hints
