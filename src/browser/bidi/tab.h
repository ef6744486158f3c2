// Private to src/browser: Firefox over WebDriver BiDi (https://w3c.github.io/webdriver-bidi/), the second engine
// behind Tab. A browsing context is the tab, a sandbox realm ("vimgpt") the isolated world, input.performActions the
// trusted input, network.* the requests in flight and the document filter. What BiDi in Firefox 153 has no way to do
// is an Unsupported error that says so (docs/engines.md).
#pragma once

#include <memory>

#include "browser/core.h"

namespace vimgpt::browser {

class BidiTab final : public EngineTab {
 public:
  // Launches a local Firefox (launch::launch_firefox), starts a BiDi session and works in its first tab.
  static Result<std::unique_ptr<Tab>> launch_local(const launch::LaunchOptions& launch, const TabOptions& options);
  // Works in a user context of its own on a connection it shares (Tab::open): the session is made if there is none.
  static Result<std::unique_ptr<Tab>> open_shared(const std::shared_ptr<wire::Connection>& connection,
                                                  const TabOptions& options);
  struct State;
  explicit BidiTab(std::unique_ptr<State> state);
  ~BidiTab() override;
  BidiTab(const BidiTab&) = delete;
  BidiTab& operator=(const BidiTab&) = delete;
#include "browser/tab_overrides.inc"

 private:
  std::unique_ptr<State> s_;
};

}  // namespace vimgpt::browser
