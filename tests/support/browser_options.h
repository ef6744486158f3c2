// Launch options for tests: the browser resolves no host but loopback, so saved real pages fail their external
// resources at once (instead of waiting on DNS) and no test traffic can leave 127.0.0.1. Names under .test (a reserved
// TLD) resolve to 127.0.0.1 on Chromium, kLoopbackTestHosts on Firefox: each is a site of its own, for frames from a
// third origin.
//
// The browser and end-to-end suites run on both engines: CTest runs the firefox label's copies of them with
// VIMGPT_TEST_ENGINE=firefox (tests/CMakeLists.txt), and every launch here, and every vimgpt a test starts, then
// runs Firefox.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include "launch/launch.h"
#include "support/refused_port.h"

namespace vimgpt::test {

// Firefox resolves only the names it is given (network.dns.localDomains), not a whole TLD.
inline constexpr const char* kLoopbackTestHosts = "nested.test";

inline launch::Engine test_engine() {
  const char* name = std::getenv("VIMGPT_TEST_ENGINE");
  return name != nullptr && std::string_view(name) == "firefox" ? launch::Engine::Firefox : launch::Engine::Chromium;
}
inline bool on_firefox() {
  return test_engine() == launch::Engine::Firefox;
}

// The vimgpt processes a test starts run on the test's engine: their --engine, from the environment.
inline std::string engine_variable() {
  return "VIMGPT_ENGINE=" + std::string(launch::to_string(test_engine()));
}

inline launch::LaunchOptions loopback_only_launch(launch::Engine engine = test_engine()) {
  launch::LaunchOptions options;
  options.engine = engine;
  if (options.engine == launch::Engine::Firefox) {
    // Firefox has no resolver rules: every request but loopback's (which Firefox never proxies) and the test hosts'
    // goes to a proxy on a loopback port that refuses it, so it fails at once and never leaves the machine.
    static const RefusedPort proxy;
    const std::string port = std::to_string(proxy.port());
    options.firefox_prefs = {{"network.proxy.type", "1"},
                             {"network.proxy.http", "\"127.0.0.1\""},
                             {"network.proxy.http_port", port},
                             {"network.proxy.ssl", "\"127.0.0.1\""},
                             {"network.proxy.ssl_port", port},
                             {"network.proxy.no_proxies_on", "\"" + std::string(kLoopbackTestHosts) + "\""},
                             {"network.dns.localDomains", "\"" + std::string(kLoopbackTestHosts) + "\""},
                             {"network.proxy.allow_hijacking_localhost", "false"}};
    return options;
  }
  options.extra_args.emplace_back(
      "--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost");
  return options;
}

// The full Chromium, for what only it does: headless runs use chromium-headless-shell, which fetches no page
// icons and runs an isolated world's new-document scripts only when the world is first used. Firefox has one
// build: the same Firefox.
inline constexpr const char* kFullChromium = "/usr/lib/chromium/chromium";
inline launch::LaunchOptions full_browser_launch(launch::LaunchOptions options = loopback_only_launch()) {
  if (options.engine == launch::Engine::Chromium) options.chrome_path = kFullChromium;
  return options;
}

}  // namespace vimgpt::test
