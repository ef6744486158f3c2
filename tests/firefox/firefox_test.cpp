// What is Firefox's own, on pages served from 127.0.0.1: its launch, the allow-list as network intercepts, the tabs
// a page opens, and the live view's capture loop. The browser suites (browser/) run on Firefox as well: the firefox
// label's Firefox.* copies of them (tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "browser/browser.h"
#include "support/assertions.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using browser::Tab;
using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

launch::LaunchOptions firefox() {
  launch::LaunchOptions options;
  options.engine = launch::Engine::Firefox;
  return options;
}

class FirefoxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/lib/firefox-esr/firefox-esr"))
      GTEST_FAIL() << "scripts/setup.sh installs firefox-esr";
    server_ = std::make_unique<test::SiteServer>();
    server_->mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
    auto tab = Tab::launch(firefox(), options_);
    ASSERT_TRUE(tab) << tab.error().describe();
    tab_ = std::move(*tab);
  }

  browser::TabOptions options_;
  std::unique_ptr<test::SiteServer> server_;
  std::unique_ptr<Tab> tab_;
};

TEST_F(FirefoxTest, ATabThePageOpensIsFollowedAndClosedBackToTheFirst) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/popup.html")));
  ASSERT_OK(tab_->click({120, 115}));  // the alert button
  ASSERT_OK(tab_->settle(5s));
  const auto dialogs = tab_->take_dialogs();
  ASSERT_EQ(dialogs.size(), 1U);
  EXPECT_EQ(dialogs[0].message, "hello from the page");
  EXPECT_EQ(*tab_->title(), "after alert");
  ASSERT_OK(tab_->click({120, 45}));  // a link to a new tab
  ASSERT_OK(tab_->settle(5s));
  const auto pages = tab_->pages();
  ASSERT_TRUE(pages) << pages.error().describe();
  ASSERT_EQ(pages->size(), 2U);
  EXPECT_TRUE((*pages)[1].current);
  EXPECT_EQ(*tab_->title(), "Input");
  ASSERT_OK(tab_->close_page());
  EXPECT_EQ(*tab_->title(), "after alert");
}

TEST_F(FirefoxTest, ADocumentTheAllowListRefusesNeverLoads) {
  options_.navigation_filter = [](const std::string& url) -> std::optional<std::string> {
    if (url.find("/fx/popup.html") != std::string::npos) return "not on the allow-list";
    return std::nullopt;
  };
  auto guarded = Tab::launch(firefox(), options_);
  ASSERT_TRUE(guarded) << guarded.error().describe();
  ASSERT_OK((*guarded)->navigate(server_->url("/fx/input.html")));
  const auto refused = (*guarded)->navigate(server_->url("/fx/popup.html"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::Refused);
  EXPECT_EQ(server_->count("GET", "/fx/popup.html"), 0);
}

// Firefox 153 has no screencast: while someone watches, the viewport is captured in a loop and a frame passed on only
// when it differs from the last; stopping ends the loop before it returns.
TEST_F(FirefoxTest, TheLiveViewsFramesComeWhenThePageChangesAndStopWithTheWatcher) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<std::string> frames;
  tab_->start_screencast([&](browser::Screenshot frame) {
    EXPECT_EQ(frame.format, browser::ImageFormat::Jpeg);
    std::scoped_lock lock(mutex);
    frames.push_back(std::move(frame.bytes));
    arrived.notify_all();
  });
  const auto frames_beyond = [&](std::size_t count) {
    std::unique_lock lock(mutex);
    return arrived.wait_for(lock, 10s, [&] { return frames.size() > count; });
  };
  ASSERT_TRUE(frames_beyond(0)) << "no first frame";
  for (const char* colour : {"red", "blue"}) {
    std::size_t seen = 0;
    {
      std::scoped_lock lock(mutex);
      seen = frames.size();
    }
    ASSERT_OK(tab_->evaluate_in_page(std::string("document.body.style.background = '") + colour + "'; true"));
    ASSERT_TRUE(frames_beyond(seen)) << "no frame after the page turned " << colour;
  }
  tab_->stop_screencast();
  std::size_t stopped_at = 0;
  {
    std::scoped_lock lock(mutex);
    stopped_at = frames.size();
    for (std::size_t i = 1; i < frames.size(); ++i) EXPECT_NE(frames[i], frames[i - 1]) << "frame " << i << " repeats";
  }
  ASSERT_OK(tab_->evaluate_in_page("document.body.style.background = 'green'; true"));
  ASSERT_TRUE(tab_->screenshot());  // painted green
  std::scoped_lock lock(mutex);
  EXPECT_EQ(frames.size(), stopped_at);
}

// The profile template (src/launch/firefox_profile.cpp): made by the first launch in a cache folder, copied by the
// next, never written to by a run; what a page leaves in one run's profile (a cookie, local storage) is not in the
// next one's.
TEST(FirefoxProfileTemplate, IsMadeOnceAndCarriesNothingFromOneRunToTheNext) {
  namespace fs = std::filesystem;
  const fs::path cache = fs::temp_directory_path() / ("vimgpt-template-test-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  const char* before = std::getenv("XDG_CACHE_HOME");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  test::SiteServer server;
  server.mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
  const auto snapshot = [&] {
    std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> files;
    for (const auto& entry : fs::recursive_directory_iterator(cache / "vimgpt" / "firefox-profiles")) {
      if (entry.is_regular_file()) files[entry.path().string()] = {entry.file_size(), entry.last_write_time()};
    }
    return files;
  };
  const std::string remembered = "document.cookie + '|' + (localStorage.getItem('seen') || '')";
  {
    auto first = Tab::launch(firefox());
    ASSERT_TRUE(first) << first.error().describe();
    ASSERT_OK((*first)->navigate(server.url("/fx/input.html")));
    ASSERT_OK((*first)->evaluate_in_page(
        "document.cookie = 'seen=1; max-age=3600'; localStorage.setItem('seen', '1'); true"));
    EXPECT_EQ(*(*first)->evaluate_in_page(remembered), "seen=1|1");
  }
  std::vector<fs::path> templates;
  for (const auto& entry : fs::directory_iterator(cache / "vimgpt" / "firefox-profiles"))
    templates.push_back(entry.path());
  ASSERT_EQ(templates.size(), 1U) << "one template, no scratch folder or failure note left";
  EXPECT_TRUE(std::regex_match(templates[0].filename().string(), std::regex(R"(\d+\.\d+[^-]*-\d{14}-[0-9a-f]{8})")))
      << templates[0];
  EXPECT_TRUE(fs::is_directory(templates[0] / "startupCache"));
  EXPECT_TRUE(fs::exists(templates[0] / "times.json"));
  for (const char* absent : {"user.js", "lock", ".parentlock"})
    EXPECT_FALSE(fs::exists(templates[0] / absent)) << absent;
  const auto made = snapshot();
  {
    auto second = Tab::launch(firefox());
    ASSERT_TRUE(second) << second.error().describe();
    // Its profile started as a copy: the template's creation time (times.json, written when a profile is new).
    std::ifstream command_line("/proc/" + std::to_string((*second)->browser_pid()) + "/cmdline");
    std::vector<std::string> argv;
    for (std::string arg; std::getline(command_line, arg, '\0');) argv.push_back(arg);
    const auto flag = std::find(argv.begin(), argv.end(), "--profile");
    ASSERT_TRUE(flag != argv.end() && flag + 1 != argv.end());
    EXPECT_EQ(read_file(fs::path(*(flag + 1)) / "times.json"), read_file(templates[0] / "times.json"));
    ASSERT_OK((*second)->navigate(server.url("/fx/input.html")));
    EXPECT_EQ(*(*second)->evaluate_in_page(remembered), "|");
  }
  EXPECT_EQ(snapshot(), made) << "the template was changed or made again";
  if (saved.empty()) {
    ::unsetenv("XDG_CACHE_HOME");
  } else {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  }
  fs::remove_all(cache);
}

TEST(FirefoxProfileTemplate, ACacheFolderThatCannotBeWrittenStartsFirefoxAsBefore) {
  namespace fs = std::filesystem;
  // vimgpt's folder in the cache is a file (Firefox needs the cache folder itself: it does not start without one).
  const fs::path cache = fs::temp_directory_path() / ("vimgpt-template-file-" + std::to_string(::getpid()));
  fs::create_directories(cache);
  std::ofstream(cache / "vimgpt") << "not a folder";
  const char* before = std::getenv("XDG_CACHE_HOME");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  auto tab = Tab::launch(firefox());
  if (saved.empty()) {
    ::unsetenv("XDG_CACHE_HOME");
  } else {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  }
  fs::remove_all(cache);
  ASSERT_TRUE(tab) << tab.error().describe();
  EXPECT_EQ(*(*tab)->evaluate_in_page("1 + 1"), 2);
}

TEST(FirefoxLaunch, WhatCannotStartSaysWhatToDo) {
  auto options = firefox();
  options.display = launch::Display::Headed;
  const std::string display = std::getenv("DISPLAY") != nullptr ? std::getenv("DISPLAY") : "";
  const std::string wayland = std::getenv("WAYLAND_DISPLAY") != nullptr ? std::getenv("WAYLAND_DISPLAY") : "";
  ::unsetenv("DISPLAY");
  ::unsetenv("WAYLAND_DISPLAY");
  const auto headed = Tab::launch(options);
  if (!display.empty()) ::setenv("DISPLAY", display.c_str(), 1);
  if (!wayland.empty()) ::setenv("WAYLAND_DISPLAY", wayland.c_str(), 1);
  ASSERT_FALSE(headed);
  EXPECT_EQ(headed.error().kind, ErrorKind::Unsupported);
  EXPECT_NE(headed.error().message.find("--xvfb"), std::string::npos) << headed.error().message;
  options = firefox();
  options.firefox_path = "/nonexistent/firefox";
  const auto missing = Tab::launch(options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  EXPECT_NE(missing.error().message.find("firefox-esr"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt
