// A capture taken while the page's network-quiet or DOM-quiet window is still open (after navigate or settle with
// SettleWait::LeaveOpen) is kept only when the page stayed still until the window closed.
#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <mutex>

#include "hints_support.h"

namespace vimgpt::hints {
namespace {

using namespace std::chrono_literals;
using test_support::by_token;

// A window long enough that the capture surely starts inside it, whatever the machine's load.
constexpr auto kWindow = 1000ms;

class HintsCapture : public test_support::HintsBrowserTest {
 protected:
  static void SetUpTestSuite() {
    browser::TabOptions options;
    options.settle.network_quiet = kWindow;
    start(held_icon_routes, options);
  }

  // Goes to `path` the way a click does, and settles leaving the network-quiet window open.
  static void follow_link_to(const std::string& path) {
    ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/draw.html")));
    ASSERT_TRUE(tab_->evaluate_in_page("location.href = '" + server_->url(path) + "'"));
    ASSERT_TRUE(tab_->settle(10s, 150ms, browser::SettleWait::LeaveOpen));
    ASSERT_EQ(tab_->url().value_or(""), server_->url(path));
  }

  // Clicks the page's first button as an action would, and settles leaving the DOM-quiet window open.
  static void click_first_button(std::chrono::milliseconds quiet) {
    ASSERT_TRUE(tab_->evaluate_in_page("document.querySelector('button').click()"));
    ASSERT_TRUE(tab_->settle(10s, quiet, browser::SettleWait::LeaveOpen));
  }

  // /with-icon names /held-icon.png as its icon, which Chromium fetches after load; the server holds that
  // request until release_icon() (or 10 s).
  static void held_icon_routes(httplib::Server& server) {
    server.Get("/with-icon", [](const httplib::Request&, httplib::Response& response) {
      response.set_content("<!doctype html><link rel=icon href=/held-icon.png><a href=#a>a link</a>", "text/html");
    });
    server.Get("/held-icon.png", [](const httplib::Request&, httplib::Response& response) {
      std::unique_lock lock(icon_mutex_);
      icon_asked_ = true;
      icon_cv_.notify_all();
      icon_cv_.wait_for(lock, 10s, [] { return icon_released_; });
      response.status = 404;
    });
  }
  static bool wait_for_icon_request() {
    std::unique_lock lock(icon_mutex_);
    return icon_cv_.wait_for(lock, 10s, [] { return icon_asked_; });
  }
  static void release_icon() {
    std::scoped_lock lock(icon_mutex_);
    icon_released_ = true;
    icon_cv_.notify_all();
  }

  static inline std::mutex icon_mutex_;
  static inline std::condition_variable icon_cv_;
  static inline bool icon_asked_ = false;
  static inline bool icon_released_ = false;
};

TEST_F(HintsCapture, SettlingWithTheWindowLeftOpenReturnsBeforeItCloses) {
  follow_link_to("/fx/hints/draw.html?open");
  const auto state = tab_->network_state();
  EXPECT_TRUE(state.idle);
  EXPECT_FALSE(state.quiet);
  tab_->wait_network_quiet();
  EXPECT_TRUE(tab_->network_state().quiet);
}

TEST_F(HintsCapture, NavigatingWithTheWindowLeftOpenReturnsAtTheLoadBeforeItCloses) {
  ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/draw.html?closed")));
  EXPECT_TRUE(tab_->network_state().quiet) << "by default navigate waits the window out";
  ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/draw.html?left-open"), browser::SettleWait::LeaveOpen));
  EXPECT_EQ(tab_->evaluate_in_page("document.readyState").value_or(wire::Json()), "complete");
  const auto state = tab_->network_state();
  EXPECT_TRUE(state.idle);
  EXPECT_FALSE(state.quiet) << "the window is the caller's";
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_FALSE(capture->retaken);
  EXPECT_EQ(capture->map.size(), 6u) << capture->map.to_text();
  EXPECT_TRUE(tab_->network_state().quiet) << "the capture returns once the window has closed";
}

TEST_F(HintsCapture, ACaptureInTheWindowIsKeptWhenThePageStaysStill) {
  follow_link_to("/fx/hints/draw.html?still");
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_FALSE(capture->retaken);
  EXPECT_EQ(capture->map.size(), 6u) << capture->map.to_text();
  EXPECT_TRUE(tab_->network_state().quiet) << "the capture returns once the window has closed";
}

TEST_F(HintsCapture, ACaptureInTheWindowIsTakenAgainWhenThePageChanges) {
  follow_link_to("/fx/hints/reacts.html?react");
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_TRUE(capture->retaken);
  // The button the page added during the first capture is in the second.
  const auto tokens = by_token(capture->map);
  EXPECT_EQ(tokens.count("yes-first"), 1u) << capture->map.to_text();
  EXPECT_EQ(tokens.count("yes-added-1"), 1u) << capture->map.to_text();
}

TEST_F(HintsCapture, ACaptureInTheWindowIsTakenAgainWhenARequestStarts) {
  // The page requests something half a second after load: after the capture began, before the window closed.
  follow_link_to("/fx/hints/reacts.html?fetch=500");
  const auto opened = tab_->network_state();
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_TRUE(capture->retaken);
  EXPECT_NE(tab_->network_state().changed, opened.changed) << "the page's request was seen";
}

TEST_F(HintsCapture, APageThatLeavesDuringTheCaptureIsCapturedWhereItWent) {
  follow_link_to("/fx/hints/reacts.html?redirect");
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_TRUE(capture->retaken);
  EXPECT_EQ(tab_->url().value_or(""), server_->url("/fx/hints/draw.html"));
  EXPECT_EQ(capture->map.size(), 6u) << "draw.html's links\n" << capture->map.to_text();
}

TEST_F(HintsCapture, AnActionThatDidNotNavigateLeavesTheDomWindowToTheCapture) {
  ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/reacts.html")));
  click_first_button(kWindow);
  const auto window = tab_->take_dom_window();
  ASSERT_TRUE(window.has_value());
  EXPECT_EQ(window->quiet, kWindow);
  EXPECT_FALSE(tab_->take_dom_window().has_value()) << "taken once";
  ASSERT_TRUE(tab_->settle(10s, kWindow));  // Close: the whole window waited out
  EXPECT_FALSE(tab_->take_dom_window().has_value());
}

TEST_F(HintsCapture, ACaptureInTheDomWindowIsKeptWhenThePageStaysStill) {
  ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/reacts.html")));
  click_first_button(kWindow);
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_FALSE(capture->retaken);
  EXPECT_EQ(by_token(capture->map).count("yes-first"), 1u) << capture->map.to_text();
}

TEST_F(HintsCapture, ACaptureInTheDomWindowIsTakenAgainWhenThePageChangesLater) {
  // The page answers the click 400 ms later: after its first reaction was over, before the window closed.
  ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/reacts.html?late=400")));
  click_first_button(kWindow);
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_EQ(by_token(capture->map).count("yes-late"), 1u) << capture->map.to_text();
}

// The page's icon is fetched by the full browser (Chromium's headless shell has no tab strip to show it in) and by
// Firefox, headless too.
class HintsCaptureFullBrowser : public HintsCapture {
 protected:
  static void SetUpTestSuite() {
    browser::TabOptions options;
    options.settle.network_quiet = kWindow;
    start(held_icon_routes, options, test::full_browser_launch());
  }
};

TEST_F(HintsCaptureFullBrowser, TheBrowsersOwnFetchesDoNotCountAsThePageLoading) {
  ASSERT_TRUE(tab_->navigate(server_->url("/with-icon")));
  ASSERT_TRUE(wait_for_icon_request()) << "the browser did not ask for the page's icon";
  // The icon is still in flight (the server holds it), and cannot change what the page shows.
  const auto state = tab_->network_state();
  release_icon();
  EXPECT_TRUE(state.idle);
}

TEST_F(HintsCapture, ASettledPageIsCapturedOnce) {
  ASSERT_TRUE(tab_->navigate(server_->url("/fx/hints/reacts.html?react")));
  ASSERT_TRUE(tab_->network_state().quiet);
  auto capture = hints::capture(*tab_);
  ASSERT_TRUE(capture) << capture.error().describe();
  EXPECT_FALSE(capture->retaken);
  // The page's reaction to the overlay came after the hints were found: not in this capture.
  const auto tokens = by_token(capture->map);
  EXPECT_EQ(tokens.count("yes-first"), 1u) << capture->map.to_text();
  EXPECT_EQ(tokens.count("yes-added-1"), 0u) << capture->map.to_text();
}

}  // namespace
}  // namespace vimgpt::hints
