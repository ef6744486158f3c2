// Remote browsers over WebSocket: two Chromium processes started here with --remote-debugging-port=0, the
// port read from DevToolsActivePort, driven through the same Connection and Tab as a local pipe.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "browser/browser.h"
#include "support/remote_chromium.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using test::RemoteChromium;

std::unique_ptr<test::SiteServer> start_site() {
  return std::make_unique<test::SiteServer>([](httplib::Server& s) {
    s.Get("/set", [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Set-Cookie", "task=" + req.get_param_value("v") + "; Path=/");
      res.set_content("<!doctype html><title>set</title><p>set</p>", "text/html");
    });
    s.Get("/show", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("<!doctype html><title>cookies:" + req.get_header_value("Cookie") + "</title>", "text/html");
    });
  });
}

std::shared_ptr<wire::Connection> connect(const RemoteChromium& chromium) {
  auto transport = wire::connect_browser(chromium.http_url());
  EXPECT_TRUE(transport) << transport.error().describe();
  if (!transport) return nullptr;
  return std::make_shared<wire::Connection>(std::move(*transport));
}

TEST(Remote, ResolvesTheAnnouncedWebSocketAndDrivesATab) {
  RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  auto resolved = wire::resolve_browser_url(chromium.http_url());
  ASSERT_TRUE(resolved) << resolved.error().describe();
  EXPECT_EQ(*resolved, chromium.ws_url());

  auto site = start_site();
  auto connection = connect(chromium);
  ASSERT_TRUE(connection);
  EXPECT_EQ(connection->process_id(), 0);
  auto tab = browser::Tab::open(connection, {});
  ASSERT_TRUE(tab) << tab.error().describe();
  ASSERT_TRUE((*tab)->navigate(site->url("/show")));
  auto title = (*tab)->title();
  ASSERT_TRUE(title);
  EXPECT_EQ(*title, "cookies:");
  // A big viewport's frame is megabytes in one message: the WebSocket must carry it whole. (3200x2000 JPEG,
  // ~1.8 MB: a 4800x3200 PNG, 15 MB, took Chromium past the 15 s command timeout on a loaded machine.)
  ASSERT_TRUE((*tab)->set_viewport({1600, 1000, 2.0}));
  ASSERT_TRUE((*tab)->evaluate_in_page(
      "document.body.style.background = 'linear-gradient(45deg, red, blue, green, yellow)'; "
      "for (let i = 0; i < 3000; ++i) document.body.append(Math.random().toString(36) + ' ');"));
  auto shot = (*tab)->screenshot({browser::ImageFormat::Jpeg, 80, 1.0, std::nullopt});
  ASSERT_TRUE(shot) << shot.error().describe();
  EXPECT_EQ(shot->width, 3200);
  EXPECT_GT(shot->bytes.size(), 1U << 20) << shot->bytes.size();
}

TEST(Remote, EachTabHasItsOwnCookies) {
  RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  auto site = start_site();
  auto connection = connect(chromium);
  ASSERT_TRUE(connection);
  auto first = browser::Tab::open(connection, {});
  auto second = browser::Tab::open(connection, {});
  ASSERT_TRUE(first && second);
  ASSERT_TRUE((*first)->navigate(site->url("/set?v=one")));
  ASSERT_TRUE((*first)->navigate(site->url("/show")));
  EXPECT_EQ((*first)->title().value_or(""), "cookies:task=one");  // the cookie was really set
  ASSERT_TRUE((*second)->navigate(site->url("/show")));
  EXPECT_EQ((*second)->title().value_or(""), "cookies:");
  // A context is disposed of with its tab: a new task on the same browser starts clean too.
  (*first)->close();
  auto third = browser::Tab::open(connection, {});
  ASSERT_TRUE(third);
  ASSERT_TRUE((*third)->navigate(site->url("/show")));
  EXPECT_EQ((*third)->title().value_or(""), "cookies:");
}

TEST(Remote, TwoBrowsersAtOnce) {
  RemoteChromium a;
  RemoteChromium b;
  ASSERT_TRUE(a.ready() && b.ready());
  EXPECT_NE(a.port(), b.port());
  auto site = start_site();
  auto ca = connect(a);
  auto cb = connect(b);
  ASSERT_TRUE(ca && cb);
  auto ta = browser::Tab::open(ca, {});
  auto tb = browser::Tab::open(cb, {});
  ASSERT_TRUE(ta && tb);
  ASSERT_TRUE((*ta)->navigate(site->url("/set?v=a")));
  ASSERT_TRUE((*tb)->navigate(site->url("/show")));
  EXPECT_EQ((*tb)->title().value_or(""), "cookies:");
}

TEST(Remote, AKilledBrowserIsBrowserExited) {
  RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  auto connection = connect(chromium);
  ASSERT_TRUE(connection);
  auto tab = browser::Tab::open(connection, {});
  ASSERT_TRUE(tab);
  wire::EventQueue closed(*connection, [](const wire::Event& e) { return e.method == "Connection.closed"; });
  chromium.kill();
  // The lost socket ends the connection by itself, without a command to notice it.
  // (EventQueue reports a dead connection as BrowserExited rather than as an event.)
  auto event = closed.wait([](const wire::Event&) { return false; }, std::chrono::seconds(10));
  ASSERT_FALSE(event);
  EXPECT_EQ(event.error().kind, ErrorKind::BrowserExited) << event.error().describe();
  EXPECT_NE(event.error().message.find("WebSocket"), std::string::npos) << event.error().message;
  EXPECT_FALSE(connection->alive());
  auto call = connection->call("Browser.getVersion");
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().kind, ErrorKind::BrowserExited);
  auto navigated = (*tab)->navigate("http://127.0.0.1:1/");
  ASSERT_FALSE(navigated);
  EXPECT_EQ(navigated.error().kind, ErrorKind::BrowserExited);
}

TEST(Remote, ClosingTheConnectionEndsAPendingCommandAtOnce) {
  RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  auto connection = connect(chromium);
  ASSERT_TRUE(connection);
  // Runtime.evaluate of a promise that never settles: the reply never comes on its own.
  auto target = connection->call("Target.createTarget", {{"url", "about:blank"}});
  ASSERT_TRUE(target);
  auto attached = connection->call("Target.attachToTarget", {{"targetId", (*target)["targetId"]}, {"flatten", true}});
  ASSERT_TRUE(attached);
  const std::string session = (*attached)["sessionId"];
  ASSERT_TRUE(connection->call("Runtime.enable", {}, session));
  wire::EventQueue logged(*connection, [](const wire::Event& e) { return e.method == "Runtime.consoleAPICalled"; });
  std::thread closer([&] {
    // The page logs once it is evaluating the command, so the close lands while the command is in flight.
    auto event = logged.wait([](const wire::Event&) { return true; }, std::chrono::seconds(10));
    EXPECT_TRUE(event);
    connection->close();
  });
  const auto start = std::chrono::steady_clock::now();
  auto pending = connection->call(
      "Runtime.evaluate", {{"expression", "console.log('waiting'); new Promise(() => {})"}, {"awaitPromise", true}},
      session, std::chrono::seconds(20));
  closer.join();
  ASSERT_FALSE(pending);
  EXPECT_EQ(pending.error().kind, ErrorKind::BrowserExited);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace vimgpt

namespace vimgpt {
namespace {

// Tasks open their tabs at the same moment on a shared browser: each must still get its own context.
void open_concurrently(const std::shared_ptr<wire::Connection>& connection) {
  auto site = start_site();
  std::vector<std::string> titles(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < titles.size(); ++i) {
    threads.emplace_back([&, i] {
      auto tab = browser::Tab::open(connection, {});
      if (!tab) return;
      const std::string value = "v" + std::to_string(i);
      auto set = (*tab)->navigate(site->url("/set?v=" + value));
      if (!set) {
        titles[i] = "set: " + set.error().describe();
        return;
      }
      auto show = (*tab)->navigate(site->url("/show"));
      titles[i] = show ? (*tab)->title().value_or("") : "show: " + show.error().describe();
    });
  }
  for (auto& thread : threads) thread.join();
  for (std::size_t i = 0; i < titles.size(); ++i) EXPECT_EQ(titles[i], "cookies:task=v" + std::to_string(i));
}

TEST(Remote, TabsOpenedConcurrentlyHaveTheirOwnCookies) {
  test::RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  auto connection = connect(chromium);
  ASSERT_TRUE(connection);
  open_concurrently(connection);
}

// The same over a pipe: whether a failure above belongs to the WebSocket or to tabs sharing a connection.
TEST(Remote, TabsOpenedConcurrentlyOverAPipeHaveTheirOwnCookies) {
  auto transport = launch::launch_chromium({});
  ASSERT_TRUE(transport);
  open_concurrently(std::make_shared<wire::Connection>(std::move(*transport)));
}

}  // namespace
}  // namespace vimgpt
