// One Firefox for the vimgpt runs of a test process. Firefox's start is most of a short run's cost on that engine (the
// first BiDi session of a Firefox: 4.9 s and 3.5 CPU-seconds here, a later one 0.04 s and 0.4, 2026-12-05), so the
// end-to-end files CTest runs as one process on Firefox (tests/CMakeLists.txt sets VIMGPT_TEST_SHARED_FIREFOX) give
// their runs one Firefox, each run a BiDi session and a user context of its own on it (vimgpt --browser ws://...),
// the way a user points vimgpt at a Firefox already running.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wire/wire.h"

namespace vimgpt::test {

// The BiDi socket of a Firefox launch::launch_firefox started (its transport names it: "Firefox (pid N) at ws://...").
std::string bidi_socket_url(const wire::Transport& firefox);

// Whether this process shares one Firefox among its tests: on Firefox, with VIMGPT_TEST_SHARED_FIREFOX=1.
bool sharing_firefox();

// Whether a vimgpt started with `args` gets the shared Firefox: in a process that shares one, a run of an objective or
// a replay that does not choose its own browser (--browser, --engine, --headed, --xvfb, --user-data-dir).
bool shares_firefox(const std::vector<std::string>& args);

// The shared Firefox's BiDi socket (ws://127.0.0.1:PORT/session), launched at first use with the tests' loopback-only
// prefs (support/browser_options.h); it ends with the process.
std::string shared_firefox_url();

// After a run killed before it could end its session (Firefox takes one at a time): the next run gets a new Firefox.
void drop_shared_firefox();

}  // namespace vimgpt::test
