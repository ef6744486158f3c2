// Remote-browser URLs: what resolve_browser_url and connect_websocket accept, and /json/version lookups
// against a loopback server standing in for a browser's DevTools HTTP endpoint.
#include <gtest/gtest.h>
#include <httplib.h>

#include "support/fake_latency.h"
#include "support/refused_port.h"
#include "support/site_server.h"
#include "wire/wire.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

TEST(ResolveBrowserUrl, PassesWebSocketUrlsThrough) {
  for (const char* url : {"ws://127.0.0.1:9222/devtools/browser/abc", "wss://fleet.example:443/session?token=x",
                          "ws://[::1]:9222/devtools/browser/abc", "ws://host/path"}) {
    auto resolved = wire::resolve_browser_url(url);
    ASSERT_TRUE(resolved) << url << ": " << resolved.error().describe();
    EXPECT_EQ(*resolved, url);
  }
}

TEST(ResolveBrowserUrl, RefusesWhatIsNotABrowserUrl) {
  for (const char* url : {"127.0.0.1:9222", "ftp://127.0.0.1/", "ws://:9222/", "ws://host:0/", "ws://host:70000/",
                          "ws://host:12ab/", "ws://[::1/", "ws://user:pw@host/", "ws://[::1]x/"}) {
    auto resolved = wire::resolve_browser_url(url);
    ASSERT_FALSE(resolved) << url;
    EXPECT_EQ(resolved.error().kind, ErrorKind::InvalidArgument) << url << ": " << resolved.error().describe();
  }
}

TEST(ResolveBrowserUrl, AsksJsonVersionWhateverPathWasGiven) {
  std::string host_header;
  test::SiteServer site([&](httplib::Server& s) {
    s.Get("/json/version", [&](const httplib::Request& req, httplib::Response& res) {
      host_header = req.get_header_value("Host");
      res.set_content(R"({"Browser": "Chrome/120", "webSocketDebuggerUrl": "ws://127.0.0.1:1/devtools/browser/x"})",
                      "application/json");
    });
  });
  for (const std::string path : {"", "/", "/json/version", "/anything"}) {
    auto resolved = wire::resolve_browser_url("http://127.0.0.1:" + std::to_string(site.port()) + path);
    ASSERT_TRUE(resolved) << path << ": " << resolved.error().describe();
    EXPECT_EQ(*resolved, "ws://127.0.0.1:1/devtools/browser/x");
  }
  // Chromium answers only requests whose Host is an address or localhost: the port must be in it.
  EXPECT_EQ(host_header, "127.0.0.1:" + std::to_string(site.port()));
}

// browserless: the token (and options such as timeout=0) ride in the query, which /json/version needs too, and
// the socket it announces has no token of its own.
TEST(ResolveBrowserUrl, CarriesTheQueryToJsonVersionAndOntoTheSocket) {
  std::string asked_with;
  std::string header;
  test::SiteServer site([&](httplib::Server& s) {
    s.Get("/json/version", [&](const httplib::Request& req, httplib::Response& res) {
      asked_with = req.get_param_value("token");
      header = req.get_header_value("X-Fleet-Key");
      if (asked_with != "T") {
        res.status = 401;
        return;
      }
      res.set_content(R"({"webSocketDebuggerUrl": "ws://127.0.0.1:1/devtools/browser/x"})", "application/json");
    });
  });
  const std::string base = "http://127.0.0.1:" + std::to_string(site.port());
  auto resolved = wire::resolve_browser_url(base + "?token=T&timeout=0", {{"X-Fleet-Key", "k1"}}, 5s);
  ASSERT_TRUE(resolved) << resolved.error().describe();
  EXPECT_EQ(*resolved, "ws://127.0.0.1:1/devtools/browser/x?token=T&timeout=0");
  EXPECT_EQ(asked_with, "T");
  EXPECT_EQ(header, "k1");
  // Without the token: the 401 says where the token goes.
  auto refused = wire::resolve_browser_url(base + "/");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("401"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("token"), std::string::npos) << refused.error().message;
}

// A Selenium Grid answers /json/version with 404: the error names the URL form that works.
TEST(ResolveBrowserUrl, PointsAGridAtTheWebDriverForm) {
  test::SiteServer grid([](httplib::Server& s) {
    s.Get("/json/version", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  });
  auto resolved = wire::resolve_browser_url(grid.url(""));
  ASSERT_FALSE(resolved);
  EXPECT_NE(resolved.error().message.find("webdriver+" + grid.url("")), std::string::npos) << resolved.error().message;
}

TEST(ResolveBrowserUrl, ExplainsAnEndpointThatIsNotDevTools) {
  test::SiteServer site([](httplib::Server& s) {
    s.Get("/json/version", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"hello": "world"})", "application/json");
    });
  });
  auto resolved = wire::resolve_browser_url(site.url("/"));
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().kind, ErrorKind::Protocol);
  EXPECT_NE(resolved.error().message.find("webSocketDebuggerUrl"), std::string::npos);

  test::SiteServer missing;
  auto not_found = wire::resolve_browser_url(missing.url("/"));
  ASSERT_FALSE(not_found);
  EXPECT_NE(not_found.error().message.find("404"), std::string::npos) << not_found.error().message;
}

TEST(ResolveBrowserUrl, ARefusedConnectionIsANetworkError) {
  const test::RefusedPort refused;
  auto resolved = wire::resolve_browser_url(refused.url(""));
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().kind, ErrorKind::Network) << resolved.error().describe();
}

TEST(ResolveBrowserUrl, ASilentServerTimesOut) {
  // Accepts the connection and never answers: the request phase must end at its deadline.
  test::SiteServer silent([](httplib::Server& s) {
    s.Get("/json/version", [](const httplib::Request&, httplib::Response& res) {
      test::simulate_latency(1500ms);  // the stalled peer under test, not a wait for an event
      res.set_content("{}", "application/json");
    });
  });
  const auto start = std::chrono::steady_clock::now();
  auto resolved = wire::resolve_browser_url(silent.url("/"), 300ms);
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().kind, ErrorKind::Timeout) << resolved.error().describe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(ConnectWebSocket, WantsAWebSocketUrl) {
  auto transport = wire::connect_websocket("http://127.0.0.1:9222");
  ASSERT_FALSE(transport);
  EXPECT_EQ(transport.error().kind, ErrorKind::InvalidArgument);
}

TEST(ConnectWebSocket, AnHttpServerThatRefusesTheUpgradeIsANetworkError) {
  test::SiteServer site;
  auto transport = wire::connect_websocket("ws://127.0.0.1:" + std::to_string(site.port()) + "/devtools/browser/x");
  ASSERT_FALSE(transport);
  EXPECT_EQ(transport.error().kind, ErrorKind::Network) << transport.error().describe();
}

}  // namespace
}  // namespace vimgpt
