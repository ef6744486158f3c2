#include "support/shared_browser.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "launch/launch.h"
#include "support/browser_options.h"
#include "support/remote_chromium.h"

namespace vimgpt::test {
namespace {

namespace fs = std::filesystem;

// The browser and, for Chromium, the profile folder it was given (so that its DevToolsActivePort can be read), removed
// after the browser has gone.
struct SharedBrowser {
  std::unique_ptr<wire::Transport> browser;
  fs::path profile;
  std::string url;
  ~SharedBrowser() {
    browser.reset();
    std::error_code ignored;
    if (!profile.empty()) fs::remove_all(profile, ignored);
  }
};

std::unique_ptr<SharedBrowser>& shared() {
  static std::unique_ptr<SharedBrowser> browser;
  return browser;
}

std::unique_ptr<SharedBrowser> launch_shared() {
  auto shared = std::make_unique<SharedBrowser>();
  launch::LaunchOptions options = loopback_only_launch();
  if (options.engine == launch::Engine::Chromium) {
    std::string pattern = (fs::temp_directory_path() / "vimgpt-shared-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "no folder for the shared Chromium's profile";
      return nullptr;
    }
    shared->profile = pattern;
    options.user_data_dir = pattern;
    // Beside the pipe the launch speaks on, the DevTools port other processes (the vimgpt runs) connect to.
    options.extra_args.emplace_back("--remote-debugging-port=0");
  }
  auto launched = launch::launch_browser(options);
  if (!launched) {
    ADD_FAILURE() << "the shared browser did not start: " << launched.error().describe();
    return nullptr;
  }
  shared->browser = std::move(*launched);
  if (options.engine == launch::Engine::Firefox) {
    shared->url = bidi_socket_url(*shared->browser);
  } else if (const auto endpoint = wait_for_devtools_endpoint(shared->profile, [] { return false; })) {
    shared->url = "ws://127.0.0.1:" + std::to_string(endpoint->port) + endpoint->path;
  }
  if (shared->url.empty()) {
    ADD_FAILURE() << "the shared browser did not say where it listens: " << shared->browser->describe();
    return nullptr;
  }
  return shared;
}

}  // namespace

std::string bidi_socket_url(const wire::Transport& firefox) {
  const std::string described = firefox.describe();
  const auto at = described.find("ws://");
  return at == std::string::npos ? std::string() : described.substr(at);
}

bool sharing_browser() {
  const char* sharing = std::getenv("VIMGPT_TEST_SHARED_BROWSER");
  return sharing != nullptr && std::string_view(sharing) == "1";
}

bool shares_browser(const std::vector<std::string>& args) {
  if (!sharing_browser() || args.empty()) return false;
  // An objective is words; the commands that take one are run and replay.
  const std::string& first = args.front();
  if (first != "run" && first != "replay" && first.find(' ') == std::string::npos) return false;
  static const std::vector<std::string_view> own_browser = {"--browser", "--engine", "--headed", "--xvfb",
                                                            "--user-data-dir"};
  return std::none_of(args.begin(), args.end(), [](const std::string& arg) {
    return std::find(own_browser.begin(), own_browser.end(), arg) != own_browser.end();
  });
}

std::string shared_browser_url() {
  auto& browser = shared();
  if (browser && ::kill(browser->browser->process_id(), 0) != 0) browser.reset();  // it died with a test: a new one
  if (!browser) browser = launch_shared();
  return browser ? browser->url : std::string();
}

void drop_shared_browser() {
  shared().reset();
}

}  // namespace vimgpt::test
