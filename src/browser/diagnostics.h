// For tests and diagnostics that speak a browser's protocol themselves (a crash to inject, an event to watch): the wire
// under a tab and the id its protocol knows the page by (Chromium's flattened session, Firefox's browsing context).
// The modules use browser::Tab; lint keeps protocol methods out of them.
#pragma once

#include <string>

#include "browser/browser.h"
#include "wire/wire.h"

namespace vimgpt::browser {

wire::Connection& connection_of(Tab& tab);
std::string session_of(const Tab& tab);

}  // namespace vimgpt::browser
