// The 25 saved real websites (../shared/pages beside the project, or the folder $VIMGPT_PAGES_DIR names).
// A clone of the project on its own has none: the tests that need them skip, saying why.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace vimgpt::test {

inline constexpr const char* kNoSavedPages =
    "the saved real pages are not here: put them in ../shared/pages beside the project, or name their folder in "
    "VIMGPT_PAGES_DIR";

inline std::optional<std::filesystem::path> saved_pages_dir() {
  const char* chosen = std::getenv("VIMGPT_PAGES_DIR");
  const std::filesystem::path dir = chosen != nullptr && *chosen != '\0' ? chosen : VIMGPT_PAGES_DIR;
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) return std::nullopt;
  return dir;
}

// The .html files of the saved pages, sorted; empty when there are none.
inline std::vector<std::string> saved_page_names() {
  std::vector<std::string> names;
  const auto dir = saved_pages_dir();
  if (!dir) return names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(*dir, error))
    if (entry.path().extension() == ".html") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace vimgpt::test
