// webdriver+http:// browsers against a loopback server that answers as Selenium Grid 4.48 does (its replies'
// shapes as the real Grid gave them here; the real Grid drives a browser in tests/interop/grid_test.cpp): what
// a new session asks for, and that a session vimgpt cannot use is deleted, never left holding a Grid slot.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "common/base64.h"
#include "fleet/fleet.h"
#include "support/refused_port.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

struct FakeGrid {
  std::mutex mutex;
  Json asked;  // the last new session's body
  std::string content_type;
  std::string authorization;
  std::string fleet_header;
  std::vector<std::string> deleted;
  Json session_reply;  // "value" of a new session's reply
  int status = 200;
  // As a Grid whose slots are all busy: a new session is held (bounded) until released.
  bool queue_new_sessions = false;
  bool released = false;
  int new_sessions_asked = 0;
  std::condition_variable changed;
  test::SiteServer server{[this](httplib::Server& s) {
    s.Post("/wd/hub/session", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock lock(mutex);
      ++new_sessions_asked;
      changed.notify_all();
      if (queue_new_sessions) changed.wait_for(lock, 30s, [this] { return released; });
      asked = Json::parse(req.body, nullptr, false);
      content_type = req.get_header_value("Content-Type");
      authorization = req.get_header_value("Authorization");
      fleet_header = req.get_header_value("X-Fleet");
      res.status = status;
      res.set_content(Json{{"value", session_reply}}.dump(), "application/json; charset=utf-8");
    });
    s.Delete(R"(/wd/hub/session/([0-9a-f]+))", [this](const httplib::Request& req, httplib::Response& res) {
      std::scoped_lock lock(mutex);
      deleted.push_back(req.matches[1]);
      res.set_content(R"({"value": null})", "application/json; charset=utf-8");
    });
  }};

  ~FakeGrid() {
    {
      std::scoped_lock lock(mutex);
      released = true;
    }
    changed.notify_all();
  }
  FakeGrid() = default;
  FakeGrid(const FakeGrid&) = delete;
  FakeGrid& operator=(const FakeGrid&) = delete;

  [[nodiscard]] std::string url() const {
    return "webdriver+http://127.0.0.1:" + std::to_string(server.port()) + "/wd/hub";
  }
};

TEST(WebDriver, AsksForChromiumWithVimgptsFeaturesAndTheCallersCapabilities) {
  FakeGrid grid;
  test::RefusedPort refused;
  grid.session_reply = {{"sessionId", "5e55"},
                        {"capabilities",
                         {{"browserName", "chrome"},
                          {"se:cdp", "ws://127.0.0.1:" + std::to_string(refused.port()) + "/session/5e55/se/cdp"}}}};
  fleet::BrowserOptions options;
  options.headers = {{"X-Fleet", "blue"}};
  options.webdriver_capabilities = Json::parse(R"({"se:name": "nightly eval", "goog:chromeOptions":
      {"args": ["--no-sandbox", "--disable-features=Foo"], "binary": "/usr/lib/chromium/chromium"}})");
  options.timeout = 2s;
  const std::string with_credentials =
      "webdriver+http://ada:s3cret@127.0.0.1:" + std::to_string(grid.server.port()) + "/wd/hub";
  auto transport = fleet::connect_browser(with_credentials, options);
  // The session's socket refuses: the session is deleted, and the error says which step failed.
  ASSERT_FALSE(transport);
  EXPECT_NE(transport.error().message.find("DevTools socket failed"), std::string::npos) << transport.error().message;

  std::scoped_lock lock(grid.mutex);
  EXPECT_EQ(grid.deleted, std::vector<std::string>{"5e55"});
  EXPECT_EQ(grid.content_type, "application/json; charset=utf-8");
  EXPECT_EQ(grid.authorization, "Basic " + base64_encode("ada:s3cret"));
  EXPECT_EQ(grid.fleet_header, "blue");
  const Json& always = grid.asked["capabilities"]["alwaysMatch"];
  EXPECT_EQ(always["browserName"], "chrome");
  EXPECT_EQ(always["se:name"], "nightly eval");
  const Json& chrome = always["goog:chromeOptions"];
  EXPECT_EQ(chrome["binary"], "/usr/lib/chromium/chromium");
  const auto args = chrome["args"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(args.begin(), args.end(), "--headless=new"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--no-sandbox"), args.end());
  const auto disabled = std::find_if(args.begin(), args.end(),
                                     [](const std::string& arg) { return arg.starts_with("--disable-features="); });
  ASSERT_NE(disabled, args.end());
  EXPECT_EQ(std::count_if(args.begin(), args.end(),
                          [](const std::string& arg) { return arg.starts_with("--disable-features="); }),
            1);
  EXPECT_NE(disabled->find(std::string(launch::kDisabledFeatures)), std::string::npos) << *disabled;
  EXPECT_TRUE(disabled->ends_with(",Foo")) << *disabled;
}

TEST(WebDriver, ASessionWithoutADevToolsSocketIsDeletedAndNamed) {
  FakeGrid grid;
  grid.session_reply = {{"sessionId", "f1ef0c"}, {"capabilities", {{"browserName", "firefox"}}}};
  auto transport = fleet::connect_browser(grid.url(), {});
  ASSERT_FALSE(transport);
  EXPECT_NE(transport.error().message.find("no \"se:cdp\""), std::string::npos) << transport.error().message;
  EXPECT_NE(transport.error().message.find("firefox"), std::string::npos) << transport.error().message;
  std::scoped_lock lock(grid.mutex);
  EXPECT_EQ(grid.deleted, std::vector<std::string>{"f1ef0c"});
}

// A Grid with every slot busy holds the new session for minutes: the person is told once that it is queued, and
// stopping the run ends the wait within about a second, not at the 5-minute limit, with no session to delete.
TEST(WebDriver, AQueuedSessionIsSaidSoAndAStopEndsItsWait) {
  FakeGrid grid;
  grid.queue_new_sessions = true;
  std::atomic<bool> stopping{false};
  std::vector<std::string> notices;
  fleet::BrowserOptions options;
  options.queued_notice_after = 100ms;
  options.on_queued = [&](const std::string& message) {
    notices.push_back(message);
    stopping = true;  // the person, told it waits, stops the run
  };
  options.stop = [&] { return stopping.load(); };
  const auto start = std::chrono::steady_clock::now();
  auto transport = fleet::connect_browser(grid.url(), options);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(transport);
  EXPECT_EQ(transport.error().kind, ErrorKind::Cancelled) << transport.error().message;
  EXPECT_LT(took, 20s);  // promptness, not a benchmark: the limit was 5 minutes
  ASSERT_EQ(notices.size(), 1U);
  EXPECT_NE(notices[0].find("no session yet from the WebDriver server at http://127.0.0.1:"), std::string::npos)
      << notices[0];
  EXPECT_NE(notices[0].find("queues new sessions while all its slots are busy; waiting up to 5m"), std::string::npos)
      << notices[0];
  std::scoped_lock lock(grid.mutex);
  EXPECT_EQ(grid.new_sessions_asked, 1);
  EXPECT_TRUE(grid.deleted.empty());
}

// A run already stopping asks for nothing.
TEST(WebDriver, NoSessionIsAskedForOnceStopped) {
  FakeGrid grid;
  fleet::BrowserOptions options;
  options.stop = [] { return true; };
  auto transport = fleet::connect_browser(grid.url(), options);
  ASSERT_FALSE(transport);
  EXPECT_EQ(transport.error().kind, ErrorKind::Cancelled);
  std::scoped_lock lock(grid.mutex);
  EXPECT_EQ(grid.new_sessions_asked, 0);
}

TEST(WebDriver, ARefusedSessionGivesTheServersReasonWithoutItsBuildInfo) {
  FakeGrid grid;
  grid.status = 500;
  grid.session_reply = {
      {"error", "session not created"},
      {"message",
       "Could not start a new session. Response code 500. Message: session not created: Chrome instance exited.\n"
       "Build info: version: '4.48.0', revision: '27f5213'\nSystem info: os.name: 'Linux'"}};
  auto transport = fleet::connect_browser(grid.url(), {});
  ASSERT_FALSE(transport);
  const std::string& message = transport.error().message;
  EXPECT_NE(message.find("session not created: Could not start a new session"), std::string::npos) << message;
  EXPECT_NE(message.find("Chrome instance exited"), std::string::npos) << message;
  EXPECT_EQ(message.find("Build info"), std::string::npos) << message;
  std::scoped_lock lock(grid.mutex);
  EXPECT_TRUE(grid.deleted.empty());
}

TEST(WebDriver, RefusesWhatIsNotAWebDriverUrl) {
  for (const char* url : {"webdriver+ws://127.0.0.1:4444", "webdriver+ftp://grid", "webdriver+http://ada@grid:4444"}) {
    auto transport = fleet::connect_browser(url, {});
    ASSERT_FALSE(transport) << url;
    EXPECT_EQ(transport.error().kind, ErrorKind::InvalidArgument) << url << ": " << transport.error().describe();
  }
}

TEST(WebDriver, ALocalhostSocketIsReachedAtTheServersAddress) {
  const auto reach = [](std::string_view announced, std::string_view server) {
    auto url = fleet::reachable_cdp_url(announced, server);
    EXPECT_TRUE(url) << announced << " via " << server;
    return url ? *url : std::string();
  };
  EXPECT_EQ(reach("ws://localhost:4444/session/1/se/cdp", "webdriver+http://grid.internal:80"),
            "ws://grid.internal:80/session/1/se/cdp");
  EXPECT_EQ(reach("ws://0.0.0.0:4444/session/1/se/cdp", "webdriver+https://ada:pw@grid.example/wd/hub"),
            "wss://grid.example:443/session/1/se/cdp");
  // A socket on another host, or a server on this machine: as announced.
  EXPECT_EQ(reach("ws://node-3:5555/session/1/se/cdp", "webdriver+http://grid.internal:4444"),
            "ws://node-3:5555/session/1/se/cdp");
  EXPECT_EQ(reach("ws://localhost:4444/session/1/se/cdp", "webdriver+http://127.0.0.1:4444"),
            "ws://localhost:4444/session/1/se/cdp");
}

}  // namespace
}  // namespace vimgpt
