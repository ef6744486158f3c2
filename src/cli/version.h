// What `vimgpt --version` prints: the project version and, when built from a git checkout, the commit as
// `git describe` names it at build time ("vimgpt 0.1.0 (829b3f2-dirty)").
#pragma once

#include <string>
#include <string_view>

namespace vimgpt::cli {

std::string version_text();

namespace detail {
// Written at every build by cmake/build_info.cmake; empty when not built from a git checkout.
std::string_view git_describe();
}  // namespace detail

}  // namespace vimgpt::cli
