// Private: the isolated-world script behind hints (src/hints/js: find, overlay, locate, caret, drop-downs).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "browser/browser.h"
#include "common/result.h"

namespace vimgpt::hints::detail {

// Evaluates an expression in one world (a tab's isolated world, or a child frame's).
using Evaluator = std::function<Result<browser::Json>(const std::string& expression)>;

// Calls `function(args)` of the hint library in a world. The library (~25 KB of script) is sent only when
// the world lacks it: the documents a tab had before its first hint pass (later ones start with it, see
// preload_source). Every other call is a few bytes to send and to parse.
Result<browser::Json> call_library(const Evaluator& evaluate, std::string_view function, const browser::Json& args);

// The library's source as a script that installs it: for browser::Tab::preload, so that each new document
// has it from the start and call_library does not have to send it.
std::string preload_source();

// The library's source: src/hints/js joined and embedded at build time (cmake/embed_js.cmake).
std::string_view library_source();

// An expression for the page's main world that returns (as a remote array) the elements at these paths.
std::string main_world_lookup(const browser::Json& paths);

// An expression for the page's main world, evaluated with the command-line API: for each path, whether the
// element there has a listener of one of `types`. null when the page hides the command-line function.
std::string main_world_listener_check(const browser::Json& paths, const browser::Json& types);

// The same for one element and everything a key event bubbles through on its way up (ancestors through shadow
// hosts, the document, the window): whether any of them has a listener of one of `types`; null as above.
std::string main_world_key_listener_check(const browser::Json& path, const browser::Json& types);

}  // namespace vimgpt::hints::detail
