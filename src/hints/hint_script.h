// Private: the isolated-world script behind hints (find, overlay, locate, caret, select).
#pragma once

#include <string>
#include <string_view>

#include "cdp/cdp.h"

namespace vimgpt::hints::detail {

// An expression that installs the hint library in the current world (once) and calls `function(args)`.
std::string library_call(std::string_view function, const cdp::Json& args);

// An expression for the page's main world that returns (as a remote array) the elements at these paths.
std::string main_world_lookup(const cdp::Json& paths);

}  // namespace vimgpt::hints::detail
