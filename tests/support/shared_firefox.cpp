#include "support/shared_firefox.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "launch/launch.h"
#include "support/browser_options.h"

namespace vimgpt::test {
namespace {

std::unique_ptr<wire::Transport>& shared() {
  static std::unique_ptr<wire::Transport> firefox;
  return firefox;
}

}  // namespace

std::string bidi_socket_url(const wire::Transport& firefox) {
  const std::string described = firefox.describe();
  const auto at = described.find("ws://");
  return at == std::string::npos ? std::string() : described.substr(at);
}

bool sharing_firefox() {
  const char* sharing = std::getenv("VIMGPT_TEST_SHARED_FIREFOX");
  return on_firefox() && sharing != nullptr && std::string_view(sharing) == "1";
}

bool shares_firefox(const std::vector<std::string>& args) {
  if (!sharing_firefox() || args.empty()) return false;
  // An objective is words; the commands that take one are run and replay.
  const std::string& first = args.front();
  if (first != "run" && first != "replay" && first.find(' ') == std::string::npos) return false;
  static const std::vector<std::string_view> own_browser = {"--browser", "--engine", "--headed", "--xvfb",
                                                            "--user-data-dir"};
  return std::none_of(args.begin(), args.end(), [](const std::string& arg) {
    return std::find(own_browser.begin(), own_browser.end(), arg) != own_browser.end();
  });
}

std::string shared_firefox_url() {
  auto& firefox = shared();
  if (firefox && ::kill(firefox->process_id(), 0) != 0) firefox.reset();  // it died with a test: a new one
  if (!firefox) {
    auto launched = launch::launch_firefox(loopback_only_launch(launch::Engine::Firefox));
    if (!launched) {
      ADD_FAILURE() << "the shared Firefox did not start: " << launched.error().describe();
      return {};
    }
    firefox = std::move(*launched);
  }
  return bidi_socket_url(*firefox);
}

void drop_shared_firefox() {
  shared().reset();
}

}  // namespace vimgpt::test
