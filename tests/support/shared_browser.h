// One browser for the tests of a test process. A browser's start is most of a short test's cost (Chromium's launch and
// exit: 1.7 CPU-seconds, its first tab about 1 s; Firefox's first BiDi session: 4.9 s and 3.5 CPU-seconds, a later one
// 0.04 s and 0.4; 2026-12-05), so the files CTest runs as one process (tests/CMakeLists.txt sets
// VIMGPT_TEST_SHARED_BROWSER) share one: their in-process tabs (support/shared_tab.h) and the vimgpt runs they start
// each get a browser context of their own on it (vimgpt --browser URL), the way a user points vimgpt at a browser
// already running. Chromium serves its DevTools on a loopback port beside its pipe; Firefox its WebDriver BiDi socket.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wire/wire.h"

namespace vimgpt::test {

// The BiDi socket of a Firefox launch::launch_firefox started (its transport names it: "Firefox (pid N) at ws://...").
std::string bidi_socket_url(const wire::Transport& firefox);

// Whether this process shares one browser among its tests: VIMGPT_TEST_SHARED_BROWSER=1.
bool sharing_browser();

// Whether a vimgpt started with `args` gets the shared browser: in a process that shares one, a run of an objective or
// a replay that does not choose its own browser (--browser, --engine, --headed, --xvfb, --user-data-dir).
bool shares_browser(const std::vector<std::string>& args);

// The shared browser's address for vimgpt --browser and wire::connect_websocket (Chromium's browser-level DevTools
// WebSocket, Firefox's BiDi socket: ws://127.0.0.1:PORT/...), launched at first use with the tests' loopback-only
// options (support/browser_options.h); it ends with the process.
std::string shared_browser_url();

// After a run killed before it could end its session (Firefox takes one at a time): the next run gets a new browser.
void drop_shared_browser();

}  // namespace vimgpt::test
