// A hint pass with its picture: find and label, then draw the labels in the page (overlay) or onto the
// captured frame (image, both-frames), in one screenshot.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using browser::Json;

namespace {
detail::Evaluator in_tab(browser::Tab& tab) {
  return [&tab](const std::string& expression) { return tab.evaluate(expression); };
}
}  // namespace

Status show_overlay(browser::Tab& tab, const HintMap& map, double label_scale) {
  Json markers = Json::array();
  for (const auto& hint : map.hints()) markers.push_back({{"l", hint.label}, {"x", hint.rect.x}, {"y", hint.rect.y}});
  VIMGPT_TRY(Json shown, detail::call_library(in_tab(tab), "overlay", {{"markers", markers}, {"scale", label_scale}}));
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

// A capture taken while a quiet window is open: how the network stood when it began (its window open when
// idle but not yet quiet) and the DOM-quiet window an action's settle left. The find call of a capture in a
// window starts watching the document for changes.
struct Window {
  browser::NetworkState before;
  std::optional<browser::DomWindow> dom;

  [[nodiscard]] bool network_open() const { return before.idle && !before.quiet; }
  [[nodiscard]] bool open() const { return network_open() || dom.has_value(); }
};

struct Pass {
  Capture capture;
  bool moved_on = false;  // taken in the window, and the page did not stay still until it closed
};

// After the screenshot: the markers come out and, in the window, once it has closed, the page is asked
// whether it changed, in the same call (which waits out the DOM-quiet window, ending early on a change). The
// markers come off whatever the screenshot did: the page must not keep them.
Result<bool> finish(browser::Tab& tab, const Window* window, bool overlay, CaptureTimings& timings) {
  auto phase = Clock::now();
  if (window && window->network_open()) tab.wait_network_quiet();
  long long dom_left = 0;
  if (window && window->dom)
    dom_left = std::max<long long>(
        0, std::chrono::ceil<std::chrono::milliseconds>(window->dom->closes - Clock::now()).count());
  if (!overlay && !window) return false;
  if (window) timings.check += elapsed(phase);
  phase = Clock::now();
  const bool watched = window != nullptr;
  auto changed = detail::call_library(in_tab(tab), "finishCapture", {{"watched", watched}, {"quietMs", dom_left}});
  (window ? timings.check : timings.draw) += elapsed(phase);
  if (!changed) return changed.failure();
  return watched && (*changed != false || tab.network_state().changed != window->before.changed);
}

// How far below the content a cropped frame goes: room for the last line's descenders and a label's edge.
constexpr double kContentMargin = 16;

browser::ScreenshotOptions screenshot_options(const CaptureOptions& options, const HintMap& map) {
  browser::ScreenshotOptions screenshot = options.screenshot;
  const double bottom = std::ceil(map.content_height() + kContentMargin);
  if (options.crop_to_content && !screenshot.region && map.content_height() > 0 && map.viewport_width() > 0 &&
      bottom < map.viewport_height()) {
    screenshot.region = browser::ViewportBox{0, 0, map.viewport_width(), bottom};
  }
  return screenshot;
}

Result<Pass> capture_once(browser::Tab& tab, const CaptureOptions& options, const Window* window) {
  auto phase = Clock::now();
  FindOptions find = options.find;
  find.watch = window != nullptr;
  VIMGPT_TRY(HintMap map, find_hints(tab, find));
  Pass pass;
  Capture& out = pass.capture;
  out.timings.find = elapsed(phase);
  const bool overlay = options.mode == DrawMode::Overlay;
  if (overlay) {
    phase = Clock::now();
    VIMGPT_TRY_VOID(show_overlay(tab, map, options.label_size()));
    out.timings.draw = elapsed(phase);
  }
  phase = Clock::now();
  auto shot = tab.screenshot(screenshot_options(options, map));
  out.timings.screenshot = elapsed(phase);
  auto moved_on = finish(tab, window, overlay, out.timings);
  if (!shot) return shot.failure();
  if (!moved_on) return moved_on.failure();
  pass.moved_on = *moved_on;
  if (overlay || options.mode == DrawMode::Unlabelled) {
    out.labelled = std::move(*shot);
  } else {
    phase = Clock::now();
    VIMGPT_TRY(out.labelled,
               draw_labels(*shot, map, options.font_path, options.screenshot.quality, options.label_size()));
    out.timings.draw += elapsed(phase);
    if (options.mode == DrawMode::BothFrames) out.clean = std::move(*shot);
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
  return pass;
}

}  // namespace

double CaptureOptions::label_size() const {
  if (label_scale > 0) return label_scale;
  const double scale = screenshot.scale > 0 ? screenshot.scale : 1.0;
  return scale < 1 ? kScaledLabelSize / scale : 1.0;
}

Result<Capture> capture(browser::Tab& tab, const CaptureOptions& options) {
  // Taking the picture while the window is open, instead of after it, saves the window on every step
  // that follows a navigation, and costs a second capture only when the page did change meanwhile.
  Window window{tab.network_state(), tab.take_dom_window()};
  auto first = capture_once(tab, options, window.open() ? &window : nullptr);
  if (first && !first->moved_on) return std::move(first->capture);
  if (!first && (!tab.alive() || tab.crashed())) return first.failure();
  // The page moved on (a request, a change in the document), or the capture failed on its way to a page
  // that is still coming (a script's redirect): once more, when the network and the DOM have been quiet.
  const auto checking = Clock::now();
  tab.wait_network_quiet();
  if (window.dom) {
    if (auto settled = tab.settle(window.dom->cap, window.dom->quiet);
        !settled && settled.error().kind == ErrorKind::BrowserExited)
      return settled.failure();
  }
  const auto check = elapsed(checking);
  VIMGPT_TRY(Pass again, capture_once(tab, options, nullptr));
  Capture& out = again.capture;
  out.retaken = true;
  out.timings.check += check;
  if (first) {
    const CaptureTimings& before = first->capture.timings;
    out.timings.find += before.find;
    out.timings.screenshot += before.screenshot;
    out.timings.draw += before.draw;
    out.timings.check += before.check;
  }
  return std::move(out);
}

}  // namespace vimgpt::hints
