// What a person's hands do beyond a click: point at an element and rest there, click it with another button
// or twice, turn the wheel over it, drag across words to select them; and whether what was acted on is still
// in view afterwards.
#include <chrono>
#include <cmath>
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
  const std::string what = "the element labelled " + at.hint.label + " (" + at.hint.role + " \"" + at.hint.text + "\")";
  if (before["top"].is_null()) {
    outcome.measurable = false;
  } else if (!before.value("scrolls", false)) {
    return fail(ErrorKind::InvalidArgument, what +
                                                " does not scroll: it is not a list, panel or frame with more "
                                                "in it than it shows (scroll the page with {\"scroll\": ...} alone)");
  }
  // Most of what it shows, as a person's few notches of the wheel would.
  const double height = before.value("height", 400.0);
  const double sign = direction == browser::ScrollDirection::Down ? 1 : -1;
  VIMGPT_TRY_VOID(tab.wheel(at.point, 0, sign * std::max(40.0, height * 0.8)));
  if (!outcome.measurable) return outcome;
  const double start = before["top"].get<double>();
  double last = start;
  const auto until = std::chrono::steady_clock::now() + kScrollSettleCap;
  // The content moves over a few frames: it has come to rest when two looks in a row find it where it was.
  for (int still = 0; still < 2 && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(kScrollLook);
    VIMGPT_TRY(Json now, state());
    const double top = now.value("top", last);
    still = std::abs(top - last) < 0.5 ? still + 1 : 0;
    last = top;
  }
  outcome.moved = last - start;
  if (std::abs(outcome.moved) < 0.5) {
    return fail(ErrorKind::InvalidArgument, what + " did not move: it is already at its " + (sign > 0 ? "end" : "top"));
  }
  return outcome;
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
