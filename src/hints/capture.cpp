// A hint pass with its picture: find and label, then draw the labels in the page (overlay) or onto the
// captured frame (image, both-frames), in one screenshot.
#include <chrono>

#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using cdp::Json;

namespace {
detail::Evaluator in_tab(browser::Tab& tab) {
  return [&tab](const std::string& expression) { return tab.evaluate(expression); };
}
}  // namespace

Status show_overlay(browser::Tab& tab, const HintMap& map) {
  Json markers = Json::array();
  for (const auto& hint : map.hints()) markers.push_back({{"l", hint.label}, {"x", hint.rect.x}, {"y", hint.rect.y}});
  VIMGPT_TRY(Json shown, detail::call_library(in_tab(tab), "overlay", {{"markers", markers}}));
  (void)shown;
  return ok();
}

Status remove_overlay(browser::Tab& tab) {
  VIMGPT_TRY(Json removed, detail::call_library(in_tab(tab), "removeOverlay", Json::object()));
  (void)removed;
  return ok();
}

Status mark_secret_field(browser::Tab& tab) {
  VIMGPT_TRY(Json marked, detail::call_library(in_tab(tab), "markSecret", Json::object()));
  if (marked != true) return fail(ErrorKind::NotFound, "nothing is focused to hold the secret");
  return ok();
}

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds elapsed(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
}

Result<Capture> capture_once(browser::Tab& tab, const CaptureOptions& options) {
  auto phase = Clock::now();
  VIMGPT_TRY(HintMap map, find_hints(tab, options.find));
  Capture out;
  out.timings.find = elapsed(phase);
  if (options.mode == DrawMode::Overlay) {
    phase = Clock::now();
    VIMGPT_TRY_VOID(show_overlay(tab, map));
    out.timings.draw = elapsed(phase);
    phase = Clock::now();
    auto shot = tab.screenshot(options.screenshot);
    out.timings.screenshot = elapsed(phase);
    phase = Clock::now();
    // The markers come off whatever the screenshot did: the page must not keep them.
    auto removed = remove_overlay(tab);
    out.timings.draw += elapsed(phase);
    if (!shot) return shot.failure();
    if (!removed) return removed.failure();
    out.labelled = std::move(*shot);
  } else {
    phase = Clock::now();
    VIMGPT_TRY(browser::Screenshot clean, tab.screenshot(options.screenshot));
    out.timings.screenshot = elapsed(phase);
    phase = Clock::now();
    VIMGPT_TRY(out.labelled, draw_labels(clean, map, options.font_path, options.screenshot.quality));
    out.timings.draw = elapsed(phase);
    if (options.mode == DrawMode::BothFrames) out.clean = std::move(clean);
  }
  if (!map.redactions().empty()) {
    phase = Clock::now();
    const int quality = options.screenshot.quality;
    VIMGPT_TRY(out.labelled, redact(out.labelled, map.redactions(), map.viewport_width(), quality));
    if (out.clean) {
      VIMGPT_TRY(*out.clean, redact(*out.clean, map.redactions(), map.viewport_width(), quality));
    }
    out.timings.draw += elapsed(phase);
  }
  out.map = std::move(map);
  return out;
}

Result<bool> page_changed(browser::Tab& tab, const browser::NetworkState& before) {
  tab.wait_network_quiet();
  VIMGPT_TRY(Json changed, detail::call_library(in_tab(tab), "changed", Json::object()));
  return changed != false || tab.network_state().changed != before.changed;
}

}  // namespace

Result<Capture> capture(browser::Tab& tab, const CaptureOptions& options) {
  // Taking the picture while the window is open, instead of after it, saves the window on every step
  // that follows a navigation, and costs a second capture only when the page did change meanwhile.
  const auto before = tab.network_state();
  const bool in_window = before.idle && !before.quiet;
  auto checking = Clock::now();
  const bool watching = in_window && detail::call_library(in_tab(tab), "watch", Json::object()).has_value();
  auto check = elapsed(checking);
  auto first = capture_once(tab, options);
  if (first && !in_window) return first;
  if (first && watching) {
    checking = Clock::now();
    const bool changed = page_changed(tab, before).value_or(true);
    check += elapsed(checking);
    if (!changed) {
      first->timings.check = check;
      return first;
    }
  }
  if (!first && (!tab.alive() || tab.crashed())) return first;
  // The page moved on (a request, a change in the document), or the capture failed on its way to a page
  // that is still coming (a script's redirect): once more, when the network has been quiet.
  checking = Clock::now();
  tab.wait_network_quiet();
  check += elapsed(checking);
  VIMGPT_TRY(Capture again, capture_once(tab, options));
  again.retaken = true;
  again.timings.check = check;
  if (first) {
    again.timings.find += first->timings.find;
    again.timings.screenshot += first->timings.screenshot;
    again.timings.draw += first->timings.draw;
  }
  return again;
}

}  // namespace vimgpt::hints
