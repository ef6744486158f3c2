// The live view on a real browser: the tab is streamed only while a page is open (Chromium's screencast; Firefox's
// capture loop is tested in firefox/), a person's pause and input reach the tab from the run's own thread, and --xvfb
// runs the full browser headed on a display of its own.
#include "live/live.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <future>

#include "browser/diagnostics.h"
#include "support/assertions.h"
#include "support/browser_options.h"
#include "support/live_client.h"
#include "support/proc.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

class LiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tab = browser::Tab::launch(test::loopback_only_launch());
    ASSERT_TRUE(tab) << tab.error().describe();
    tab_ = std::move(*tab);
    live::Options options;
    options.token = "0123456789abcdef";
    auto server = live::Server::start(options);
    ASSERT_TRUE(server) << server.error().describe();
    server_ = std::move(*server);
    frames_ = browser::connection_of(*tab_).subscribe([this](const wire::Event& event) {
      if (event.method == "Page.screencastFrame") ++streamed_;
    });
  }
  void TearDown() override { browser::connection_of(*tab_).unsubscribe(frames_); }

  test::SiteServer site_{[](httplib::Server& s) {
    s.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "<!doctype html><title>Counter</title><button id=b style='position:absolute;left:0;top:0;"
          "width:540px;height:360px' onclick='this.textContent = (window.clicks = (window.clicks || 0) + 1)'>0</button>"
          "<input id=t style='position:absolute;left:540px;top:360px;width:540px;height:360px'>",
          "text/html");
    });
  }};
  std::unique_ptr<browser::Tab> tab_;
  std::unique_ptr<live::Server> server_;
  std::uint64_t frames_ = 0;
  std::atomic<int> streamed_{0};
};

// A frame the browser encodes costs the run's cores: none while nobody watches.
TEST_F(LiveTest, TheTabIsStreamedOnlyWhileAPageIsOpen) {
  auto watch = server_->watch("counting", *tab_);
  ASSERT_OK(tab_->navigate(site_.url("/")));
  ASSERT_TRUE(tab_->screenshot());  // the page has painted
  EXPECT_EQ(streamed_.load(), 0);

  {
    test::LiveClient page(server_->port(), "0123456789abcdef");
    ASSERT_TRUE(page.connected());
    const auto hello = page.wait_json([](const nlohmann::json& m) { return m.value("type", "") == "hello"; });
    ASSERT_TRUE(hello);
    ASSERT_EQ((*hello)["runs"].size(), 1U);
    EXPECT_EQ((*hello)["runs"][0]["title"], "counting");
    const auto first = page.wait_frame('L');
    ASSERT_TRUE(first) << "no frame while a page is open";
    ASSERT_TRUE(tab_->evaluate_in_page("document.body.style.background = 'red'"));
    ASSERT_TRUE(page.wait_frame('L')) << "no frame after the page changed";
  }
  ASSERT_TRUE(server_->wait_for_watchers(0, 10s));
  ASSERT_TRUE(tab_->screenshot());  // the browser has handled the stop before this answer
  const int after_close = streamed_.load();
  ASSERT_TRUE(tab_->evaluate_in_page("document.body.style.background = 'blue'"));
  ASSERT_TRUE(tab_->screenshot());  // painted blue
  EXPECT_EQ(streamed_.load(), after_close);
}

// Pause between steps, the person's click and typing carried out on the run's thread, and what they did told back
// without what they typed.
TEST_F(LiveTest, APausedRunIsThePersonsUntilTheyResume) {
  auto watch = server_->watch("paused", *tab_);
  ASSERT_OK(tab_->navigate(site_.url("/")));
  test::LiveClient page(server_->port(), "0123456789abcdef");
  ASSERT_TRUE(page.connected());
  ASSERT_TRUE(page.wait_json([](const nlohmann::json& m) { return m.value("type", "") == "hello"; }));

  auto not_paused = watch->checkpoint(std::nullopt);
  ASSERT_TRUE(not_paused);
  EXPECT_FALSE(*not_paused);  // nobody asked

  page.send({{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"x", 0.25}, {"y", 0.25}}}});
  const auto refused = page.wait_json([](const nlohmann::json& m) { return m.value("type", "") == "error"; });
  ASSERT_TRUE(refused);  // the page is the agent's until the run has paused
  EXPECT_NE((*refused)["message"].get<std::string>().find("Take over"), std::string::npos);

  page.send({{"do", "take_over"}, {"run", 1}});
  ASSERT_TRUE(page.wait_json([](const nlohmann::json& m) {
    return m.value("type", "") == "run" && m["run"].value("state", "") == "pausing";
  }));
  auto paused = std::async(std::launch::async, [&] { return watch->checkpoint(std::nullopt); });
  ASSERT_TRUE(page.wait_json(
      [](const nlohmann::json& m) { return m.value("type", "") == "run" && m["run"].value("state", "") == "paused"; }));
  for (int i = 0; i < 2; ++i) {
    page.send({{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"x", 0.25}, {"y", 0.25}}}});
  }
  page.send({{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"x", 0.75}, {"y", 0.75}}}});
  page.send({{"do", "input"}, {"run", 1}, {"input", {{"kind", "text"}, {"text", "pässword"}}}});
  page.send({{"do", "input"}, {"run", 1}, {"input", {{"kind", "key"}, {"keys", "Shift+Home"}}}});
  page.send({{"do", "resume"}, {"run", 1}});
  ASSERT_EQ(paused.wait_for(30s), std::future_status::ready);
  auto takeover = paused.get();
  ASSERT_TRUE(takeover) << takeover.error().describe();
  ASSERT_TRUE(*takeover);
  EXPECT_EQ((*takeover)->did, "3 clicks, 8 characters typed, Shift+Home pressed");
  EXPECT_EQ((*takeover)->title, "Counter");
  EXPECT_EQ(tab_->evaluate_in_page("document.getElementById('b').textContent").value_or(""), "2");
  EXPECT_EQ(tab_->evaluate_in_page("document.getElementById('t').value").value_or(""), "pässword");
  // Selected by Shift+Home: the keys reached the field.
  EXPECT_EQ(tab_->evaluate_in_page("document.getElementById('t').selectionStart").value_or(-1), 0);
  EXPECT_EQ(agent::describe(**takeover).find("pässword"), std::string::npos);
}

// A wait for the person ends with the run's time budget, and with Ctrl-C.
TEST_F(LiveTest, AWaitForThePersonEndsAtTheDeadlineOrOnInterrupt) {
  std::atomic<bool> interrupted{false};
  auto watch = server_->watch("waiting", *tab_, &interrupted);
  auto timed_out =
      watch->hand_over(agent::ActionKind::Handoff, "Please log in", std::chrono::steady_clock::now() + 300ms);
  ASSERT_FALSE(timed_out);
  EXPECT_EQ(timed_out.error().kind, ErrorKind::Timeout);
  interrupted = true;
  auto cancelled = watch->hand_over(agent::ActionKind::Ask, "Which one?", std::nullopt);
  ASSERT_FALSE(cancelled);
  EXPECT_EQ(cancelled.error().kind, ErrorKind::Cancelled);
}

// --xvfb: the full browser, headed (no "Headless" in what it sends), on an Xvfb of its own that ends with it.
TEST(Xvfb, RunsTheFullBrowserHeadedOnADisplayOfItsOwn) {
  auto options = test::loopback_only_launch();
  options.display = launch::Display::Xvfb;
  pid_t xvfb = 0;
  {
    auto tab = browser::Tab::launch(options);
    ASSERT_TRUE(tab) << tab.error().describe();
    const pid_t browser = (*tab)->browser_pid();
    EXPECT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(browser) + "/exe").string(),
              test::on_firefox() ? "/usr/lib/firefox-esr/firefox-esr" : test::kFullChromium);
    EXPECT_EQ(test::command_line_of(browser).find("--headless"), std::string::npos);
    const auto environment = test::read_proc(browser, "environ").value_or("");
    const auto at = environment.find("DISPLAY=:");
    ASSERT_NE(at, std::string::npos);
    const std::string display = environment.substr(at + 8, environment.find('\0', at) - at - 8);
    for (pid_t pid : test::all_processes()) {
      const auto line = test::command_line_of(pid);
      if (line.starts_with("/usr/bin/Xvfb") && test::parent_of(pid) == ::getpid()) xvfb = pid;
    }
    ASSERT_NE(xvfb, 0) << "no Xvfb child";
    EXPECT_NE(test::command_line_of(xvfb).find("-displayfd"), std::string::npos);
    const auto agent = (*tab)->evaluate_in_page("navigator.userAgent");
    ASSERT_TRUE(agent) << agent.error().describe();
    EXPECT_EQ(agent->get<std::string>().find("Headless"), std::string::npos) << *agent;
    EXPECT_FALSE(display.empty());
  }
  EXPECT_TRUE(test::command_line_of(xvfb).empty()) << "Xvfb outlived its browser";
}

}  // namespace
}  // namespace vimgpt
