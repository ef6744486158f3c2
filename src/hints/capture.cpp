// A hint pass with its picture: find and label, then draw the labels in the page (overlay) or onto the
// captured frame (image, both-frames), in one screenshot.
#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using cdp::Json;

Status show_overlay(browser::Tab& tab, const HintMap& map) {
  Json markers = Json::array();
  for (const auto& hint : map.hints()) markers.push_back({{"l", hint.label}, {"x", hint.rect.x}, {"y", hint.rect.y}});
  VIMGPT_TRY(Json shown, tab.evaluate(detail::library_call("overlay", {{"markers", markers}})));
  (void)shown;
  return ok();
}

Status remove_overlay(browser::Tab& tab) {
  VIMGPT_TRY(Json removed, tab.evaluate(detail::library_call("removeOverlay", Json::object())));
  (void)removed;
  return ok();
}

Result<Capture> capture(browser::Tab& tab, const CaptureOptions& options) {
  VIMGPT_TRY(HintMap map, find_hints(tab, options.find));
  Capture out;
  if (options.mode == DrawMode::Overlay) {
    VIMGPT_TRY_VOID(show_overlay(tab, map));
    auto shot = tab.screenshot(options.screenshot);
    // The markers come off whatever the screenshot did: the page must not keep them.
    auto removed = remove_overlay(tab);
    if (!shot) return shot.failure();
    if (!removed) return removed.failure();
    out.labelled = std::move(*shot);
  } else {
    VIMGPT_TRY(browser::Screenshot clean, tab.screenshot(options.screenshot));
    VIMGPT_TRY(out.labelled, draw_labels(clean, map, options.font_path, options.screenshot.quality));
    if (options.mode == DrawMode::BothFrames) out.clean = std::move(clean);
  }
  out.map = std::move(map);
  return out;
}

}  // namespace vimgpt::hints
