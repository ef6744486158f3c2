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

// Debian's chromium-headless-shell (--chrome): the same Chromium without its UI, which starts and steps faster
// and differs in what it does for itself (no page icons; an isolated world's new-document scripts run when the
// world is first used). scripts/setup.sh installs it.
inline constexpr const char* kHeadlessShell = "/usr/lib/chromium/chromium-headless-shell";
inline cdp::LaunchOptions headless_shell_launch(cdp::LaunchOptions options = loopback_only_launch()) {
  options.chrome_path = kHeadlessShell;
  return options;
}

}  // namespace vimgpt::test
