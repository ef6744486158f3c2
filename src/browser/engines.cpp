// One surface, several engines: Tab::launch starts the engine its options name, and a remote browser reached over
// the DevTools Protocol is Chromium's.
#include "browser/bidi/tab.h"
#include "browser/cdp/tab.h"

namespace vimgpt::browser {

Result<std::unique_ptr<Tab>> Tab::launch(const launch::LaunchOptions& launch, const TabOptions& options) {
  if (launch.engine == launch::Engine::Firefox) return BidiTab::launch_local(launch, options);
  return CdpTab::launch_local(launch, options);
}

Result<std::unique_ptr<Tab>> Tab::open(const std::shared_ptr<wire::Connection>& connection, const TabOptions& options,
                                       launch::Engine engine) {
  if (engine == launch::Engine::Firefox) return BidiTab::open_shared(connection, options);
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

}  // namespace vimgpt::browser
