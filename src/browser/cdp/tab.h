// Private to src/browser: Chromium over the DevTools Protocol (https://chromedevtools.github.io/devtools-protocol/),
// the engine behind Tab for a local Chromium or a remote one.
#pragma once

#include <memory>

#include "browser/core.h"

namespace vimgpt::browser {

class CdpTab final : public EngineTab {
 public:
  struct Impl;
  // Launches a local Chromium; opens a tab in a context of its own on a browser already running.
  static Result<std::unique_ptr<Tab>> launch_local(const launch::LaunchOptions& launch, const TabOptions& options);
  static Result<std::unique_ptr<Tab>> open_remote(const std::shared_ptr<wire::Connection>& connection,
                                                  const TabOptions& options);
  explicit CdpTab(std::unique_ptr<Impl> impl);
  ~CdpTab() override;
  CdpTab(const CdpTab&) = delete;
  CdpTab& operator=(const CdpTab&) = delete;
#include "browser/tab_overrides.inc"

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vimgpt::browser
