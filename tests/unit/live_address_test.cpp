// --live's address and the takeover's words, which need no browser.
#include <gtest/gtest.h>

#include "live/live.h"
#include "support/live_client.h"

namespace vimgpt {
namespace {

TEST(LiveAddress, HostAndPortOrAPortOnLoopback) {
  auto both = live::parse_address("127.0.0.1:8765");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->host, "127.0.0.1");
  EXPECT_EQ(both->port, 8765);
  EXPECT_EQ(live::parse_address(":0")->host, "127.0.0.1");
  EXPECT_EQ(live::parse_address("9000")->port, 9000);
  EXPECT_EQ(live::parse_address("localhost:80")->host, "127.0.0.1");
  EXPECT_EQ(live::parse_address("[::1]:8080")->host, "::1");
  EXPECT_EQ(live::parse_address("0.0.0.0:8080")->host, "0.0.0.0");
  for (const char* wrong : {"", "host:", "127.0.0.1:99999", "127.0.0.1:http", "8765x"}) {
    const auto refused = live::parse_address(wrong);
    ASSERT_FALSE(refused) << wrong;
    EXPECT_EQ(refused.error().kind, ErrorKind::InvalidArgument);
    EXPECT_NE(refused.error().message.find("HOST:PORT"), std::string::npos);
  }
  EXPECT_TRUE(live::is_loopback("127.0.0.1"));
  EXPECT_TRUE(live::is_loopback("::1"));
  EXPECT_FALSE(live::is_loopback("0.0.0.0"));
  EXPECT_FALSE(live::is_loopback("192.168.1.2"));
}

TEST(LiveAddress, AnAddressTakenOrNotAnIpIsAnErrorThatSaysSo) {
  auto first = live::Server::start({});
  ASSERT_TRUE(first);
  live::Options same;
  same.port = (*first)->port();
  const auto taken = live::Server::start(same);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().kind, ErrorKind::Io);
  EXPECT_NE(taken.error().message.find("cannot listen"), std::string::npos);
  live::Options named;
  named.host = "example.com";
  EXPECT_EQ(live::Server::start(named).error().kind, ErrorKind::InvalidArgument);
  // The address to open carries its token.
  EXPECT_NE((*first)->url().find("/?token="), std::string::npos);
}

// The token is the page's lock; the Origin check keeps another site's page from using a token it got hold of.
TEST(LiveAddress, ASocketNeedsTheTokenAndTheServersOwnOrigin) {
  live::Options options;
  options.token = "0123456789abcdef";
  auto server = live::Server::start(options);
  ASSERT_TRUE(server);
  const int port = (*server)->port();
  EXPECT_EQ(test::LiveClient(port, "wrong").refused_status(), 401);
  EXPECT_EQ(test::LiveClient(port, options.token, "http://evil.example").refused_status(), 403);
  EXPECT_EQ(test::LiveClient(port, options.token, "http://127.0.0.1:" + std::to_string(port + 1)).refused_status(),
            403);
  test::LiveClient own(port, options.token, "http://127.0.0.1:" + std::to_string(port));
  EXPECT_TRUE(own.connected()) << own.refused_status();
  test::LiveClient program(port, options.token);  // no Origin: not a browser
  EXPECT_TRUE(program.connected()) << program.refused_status();
  EXPECT_TRUE((*server)->wait_for_watchers(2, std::chrono::seconds(10)));
}

TEST(Takeover, TheModelIsToldWhatThePersonDidNeverWhatTheyTyped) {
  agent::Takeover takeover;
  takeover.duration = std::chrono::milliseconds(40400);
  takeover.did = "1 click, 7 characters typed";
  takeover.url = "https://shop.example/account";
  takeover.title = "Account";
  EXPECT_EQ(agent::describe(takeover),
            "the person had the page for 40 s (1 click, 7 characters typed); the page is now \"Account\" "
            "(https://shop.example/account)");
  agent::Takeover idle;
  EXPECT_EQ(agent::describe(idle), "the person had the page for under a second (nothing done on the page)");
  const auto json = agent::to_json(takeover);
  EXPECT_DOUBLE_EQ(json["seconds"].get<double>(), 40.4);
  EXPECT_EQ(json["description"], agent::describe(takeover));
}

}  // namespace
}  // namespace vimgpt
