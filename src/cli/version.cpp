#include "cli/version.h"

namespace vimgpt::cli {

std::string version_text() {
  std::string text = "vimgpt " VIMGPT_VERSION;
  if (const auto commit = detail::git_describe(); !commit.empty()) text += " (" + std::string(commit) + ")";
  return text;
}

}  // namespace vimgpt::cli
