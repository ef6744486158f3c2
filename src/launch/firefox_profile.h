// Private to src/launch: what Firefox's launch and its profile template share.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "launch/launch.h"
#include "launch/xvfb.h"

namespace vimgpt::launch {

struct FirefoxStart {
  std::string firefox;
  std::filesystem::path profile;
  std::filesystem::path scratch;            // removed when the transport closes
  bool headless = true;                     // false: headed, on the display of the environment or of `display`
  std::unique_ptr<VirtualDisplay> display;  // --xvfb's own display, ended with the transport
  std::vector<std::string> environment;
};

// Starts Firefox on the profile, waits for the WebDriver BiDi server it announces, and connects to it: the transport
// owns the process (closing it ends Firefox and removes `scratch`). A Firefox that does not get that far is ended.
Result<std::unique_ptr<Transport>> start_firefox(FirefoxStart start);

// Appends vimgpt's prefs, and the launch's own (its User-Agent, its firefox_prefs), to the profile's user.js.
Status write_prefs(const std::filesystem::path& profile, const LaunchOptions& options);

// A new folder from a mkdtemp pattern (ending in XXXXXX).
Result<std::filesystem::path> make_scratch_folder(const std::filesystem::path& pattern);

// Fills an empty profile folder with a copy of the profile template for this Firefox build, making the template first
// when there is none yet (firefox_profile.cpp says why). Leaves the folder empty when no template can be had.
void copy_profile_template(const std::string& firefox, const std::filesystem::path& profile);

}  // namespace vimgpt::launch
