// The second engine: Firefox ESR (Debian's firefox-esr) over WebDriver BiDi behind the same browser::Tab, on pages
// served from 127.0.0.1, and the hint library running unchanged in its sandbox realm.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>

#include "browser/browser.h"
#include "hints/hints.h"
#include "support/assertions.h"
#include "support/proc.h"
#include "support/refused_port.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using browser::Tab;
using namespace std::chrono_literals;

cdp::LaunchOptions firefox() {
  cdp::LaunchOptions options;
  options.engine = cdp::Engine::Firefox;
  return options;
}

class FirefoxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/lib/firefox-esr/firefox-esr"))
      GTEST_FAIL() << "scripts/setup.sh installs firefox-esr";
    server_ = std::make_unique<test::SiteServer>([](httplib::Server& s) {
      s.Post("/submit", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content("<title>Submitted</title><p>got " + req.get_param_value("q") + "</p>", "text/html");
      });
      s.Get("/ua", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content("<title>" + req.get_header_value("User-Agent") + "</title>", "text/html");
      });
    });
    server_->mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
    server_->mount("/site", VIMGPT_FIXTURES_DIR "/site");
    auto tab = Tab::launch(firefox(), options_);
    ASSERT_TRUE(tab) << tab.error().describe();
    tab_ = std::move(*tab);
  }

  browser::TabOptions options_;
  std::unique_ptr<test::SiteServer> server_;
  std::unique_ptr<Tab> tab_;
};

TEST_F(FirefoxTest, ClickIsTrustedTypingFillsAndEnterSubmits) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  EXPECT_EQ(*tab_->title(), "Input");
  ASSERT_OK(tab_->click({200, 130}));
  EXPECT_EQ(*tab_->evaluate_in_page("window.clicked"), true);
  ASSERT_OK(tab_->click({250, 215}));
  ASSERT_OK(tab_->type_text("hello vimgpt"));
  EXPECT_EQ(*tab_->evaluate("document.getElementById('q').value"), "hello vimgpt");
  const auto before = tab_->page_generation();
  ASSERT_OK(tab_->press_key(browser::Key::Enter));
  ASSERT_OK(tab_->settle(5s));
  EXPECT_GT(tab_->page_generation(), before);
  EXPECT_EQ(*tab_->title(), "Submitted");
  EXPECT_EQ(server_->count("POST", "/submit"), 1);
  EXPECT_EQ(server_->requests().back().body, "q=hello+vimgpt");
  ASSERT_OK(tab_->go_back());
  EXPECT_EQ(*tab_->url(), server_->url("/fx/input.html"));
}

TEST_F(FirefoxTest, TheSandboxIsInvisibleToThePageAndSharesItsDom) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  ASSERT_OK(tab_->evaluate("window.vimgptPrivate = 42; true"));
  EXPECT_EQ(*tab_->evaluate_in_page("typeof window.vimgptPrivate"), "undefined");
  EXPECT_EQ(*tab_->evaluate("typeof window.pageSecret"), "undefined");
  EXPECT_EQ(*tab_->evaluate("window.vimgptPrivate"), 42);
  EXPECT_EQ(*tab_->evaluate("document.getElementById('b').textContent"), "Press");
  // Values come back as plain JSON, as on Chromium; a thrown error is an error.
  EXPECT_EQ(*tab_->evaluate("({a: [1, 'x', null], b: {c: true}})"),
            nlohmann::json::parse(R"({"a": [1, "x", null], "b": {"c": true}})"));
  EXPECT_EQ(*tab_->evaluate("Promise.resolve(7)"), 7);
  const auto thrown = tab_->evaluate("throw new Error('boom')");
  ASSERT_FALSE(thrown);
  EXPECT_NE(thrown.error().message.find("boom"), std::string::npos);
}

TEST_F(FirefoxTest, ScreenshotsAreTheViewportInTheFormatAsked) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  auto jpeg = tab_->screenshot({browser::ImageFormat::Jpeg, 80, 1.0});
  ASSERT_TRUE(jpeg) << jpeg.error().describe();
  EXPECT_EQ(jpeg->format, browser::ImageFormat::Jpeg);
  EXPECT_EQ(jpeg->width, 1080);
  EXPECT_EQ(jpeg->height, 720);
  ASSERT_OK(tab_->set_viewport({800, 600, 1.0}));
  auto png = tab_->screenshot();
  ASSERT_TRUE(png) << png.error().describe();
  EXPECT_EQ(png->format, browser::ImageFormat::Png);
  EXPECT_EQ(png->width, 800);
  EXPECT_EQ(png->height, 600);
}

// The hint library runs unchanged in the sandbox: the same labels on the same page, and a label clicked.
TEST_F(FirefoxTest, HintsAreFoundLabelledAndClicked) {
  ASSERT_OK(tab_->navigate(server_->url("/site/index.html")));
  auto captured = hints::capture(*tab_);
  ASSERT_TRUE(captured) << captured.error().describe();
  ASSERT_GE(captured->map.size(), 2U);
  EXPECT_GT(captured->labelled.width, 0);
  const hints::Hint* search = nullptr;
  for (const auto& hint : captured->map.hints()) {
    if (hint.role == "button" && hint.text == "Search") search = &hint;
  }
  ASSERT_NE(search, nullptr) << captured->map.to_text();
  auto clicked = hints::click_label(*tab_, captured->map, search->label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  ASSERT_OK(tab_->settle(5s));
  EXPECT_EQ(server_->count("GET", "/search"), 1);
}

TEST_F(FirefoxTest, DialogsAreAnsweredAndNewTabsFollowed) {
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

TEST_F(FirefoxTest, ARefusedDocumentNeverLoadsAndAFailedLoadSaysSo) {
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
  test::RefusedPort port;
  const auto failed = tab_->navigate("http://127.0.0.1:" + std::to_string(port.port()) + "/");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::Navigation);
}

TEST_F(FirefoxTest, ClosingEndsFirefoxAndRemovesItsProfile) {
  const int pid = tab_->browser_pid();
  ASSERT_GT(pid, 0);
  EXPECT_NE(test::command_line_of(pid).find("--remote-debugging-port"), std::string::npos);
  tab_->close();
  EXPECT_TRUE(test::command_line_of(pid).empty());
  ASSERT_TRUE((*Tab::launch(firefox()))->alive());
}

TEST(FirefoxLaunch, WhatFirefoxDoesNotDoSaysSo) {
  auto options = firefox();
  options.display = cdp::Display::Headed;
  const auto headed = Tab::launch(options);
  ASSERT_FALSE(headed);
  EXPECT_EQ(headed.error().kind, ErrorKind::Unsupported);
  options = firefox();
  options.firefox_path = "/nonexistent/firefox";
  const auto missing = Tab::launch(options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  EXPECT_NE(missing.error().message.find("firefox-esr"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt
