// Launch options for tests: Chromium resolves no host but loopback, so saved real pages fail their external
// resources at once (instead of waiting on DNS) and no test traffic can leave 127.0.0.1. Names under .test
// (a reserved TLD) resolve to 127.0.0.1: each is a site of its own, for frames from a third origin.
#pragma once

#include "cdp/cdp.h"

namespace vimgpt::test {

inline cdp::LaunchOptions loopback_only_launch() {
  cdp::LaunchOptions options;
  options.extra_args.emplace_back(
      "--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost");
  return options;
}

// The full Chromium, for what only it does: headless runs use chromium-headless-shell, which fetches no page
// icons and runs an isolated world's new-document scripts only when the world is first used.
inline constexpr const char* kFullChromium = "/usr/lib/chromium/chromium";
inline cdp::LaunchOptions full_browser_launch(cdp::LaunchOptions options = loopback_only_launch()) {
  options.chrome_path = kFullChromium;
  return options;
}

}  // namespace vimgpt::test
