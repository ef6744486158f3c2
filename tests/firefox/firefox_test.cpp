// What is Firefox's own, on pages served from 127.0.0.1: its launch, the allow-list as network intercepts, the tabs
// a page opens, and the live view's capture loop. The browser suites (browser/) run on Firefox as well: the firefox
// label's Firefox.* copies of them (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "browser/browser.h"
#include "support/assertions.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using browser::Tab;
using namespace std::chrono_literals;

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
