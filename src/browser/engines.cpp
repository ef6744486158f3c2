// One surface, several engines: Tab::launch starts the engine its options name, and a remote browser reached over
// the DevTools Protocol is Chromium's.
#include "browser/bidi_tab.h"
#include "browser/tab_impl.h"

namespace vimgpt::browser {

Result<std::unique_ptr<Tab>> Tab::launch(const cdp::LaunchOptions& launch, const TabOptions& options) {
  if (launch.engine == cdp::Engine::Firefox) return BidiTab::launch_local(launch, options);
  return CdpTab::launch_local(launch, options);
}

Result<std::unique_ptr<Tab>> Tab::open(const std::shared_ptr<cdp::Connection>& connection, const TabOptions& options,
                                       cdp::Engine engine) {
  if (engine == cdp::Engine::Firefox) return BidiTab::open_shared(connection, options);
  return CdpTab::open_remote(connection, options);
}

Result<std::string> Tab::url() {
  VIMGPT_TRY(PageInfo info, page_info());
  return info.url;
}

Result<std::string> Tab::title() {
  VIMGPT_TRY(PageInfo info, page_info());
  return info.title;
}

Status valid_screenshot_scale(double scale) {
  if (scale <= 0 || scale > 4) return fail(ErrorKind::InvalidArgument, "screenshot scale must be in (0, 4]");
  return ok();
}

Status valid_viewport(const Viewport& viewport) {
  if (viewport.width <= 0 || viewport.height <= 0 || viewport.device_scale_factor <= 0) {
    return fail(ErrorKind::InvalidArgument, "the viewport must be at least 1x1 with a positive scale");
  }
  return ok();
}

}  // namespace vimgpt::browser
