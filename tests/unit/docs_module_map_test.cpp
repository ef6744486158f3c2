// docs/development.md's module map against the modules CMake builds. The map named a src/queue that was never built
// (the task queue is in src/fleet) and left src/fleet out (issue 74): a map nobody checks drifts as modules come and
// go, so this test holds it to the list CMake itself computes (VIMGPT_MODULES, tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "common/file.h"

namespace vimgpt {
namespace {

// VIMGPT_MODULES: the module names, comma-separated.
std::set<std::string> modules_cmake_builds() {
  std::set<std::string> modules;
  std::stringstream list(VIMGPT_MODULES);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) modules.insert(name);
  }
  return modules;
}

// The folders of the map's rows: "| `src/NAME` | ..." in the section "## Layout", up to the next section.
std::set<std::string> folders_the_map_names(const std::string& markdown) {
  std::set<std::string> folders;
  std::stringstream lines(markdown);
  bool in_layout = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("## ")) in_layout = line == "## Layout";
    constexpr std::string_view kRow = "| `src/";
    if (!in_layout || !line.starts_with(kRow)) continue;
    const auto end = line.find('`', kRow.size());
    if (end != std::string::npos) folders.insert(line.substr(kRow.size(), end - kRow.size()));
  }
  return folders;
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "src/" : ", src/") + name;
  return text;
}

TEST(Docs, TheModuleMapNamesEveryModuleCMakeBuildsAndNoOther) {
  const auto modules = modules_cmake_builds();
  ASSERT_TRUE(modules.contains("common") && modules.contains("cli"))
      << "VIMGPT_MODULES (tests/CMakeLists.txt) is not the project's module list: " << joined(modules);
  const auto doc = read_file(VIMGPT_SOURCE_DIR "/docs/development.md");
  ASSERT_TRUE(doc) << doc.error().message;
  const auto mapped = folders_the_map_names(*doc);

  std::set<std::string> unmapped;
  for (const auto& module : modules) {
    if (!mapped.contains(module)) unmapped.insert(module);
  }
  std::set<std::string> not_built;
  for (const auto& folder : mapped) {
    if (!modules.contains(folder)) not_built.insert(folder);
  }
  EXPECT_TRUE(unmapped.empty()) << "docs/development.md's module map (## Layout) has no row for " << joined(unmapped)
                                << ", which CMake builds as a module";
  EXPECT_TRUE(not_built.empty()) << "docs/development.md's module map (## Layout) has a row for " << joined(not_built)
                                 << ", which CMake does not build as a module (vimgpt_module)";
}

}  // namespace
}  // namespace vimgpt
