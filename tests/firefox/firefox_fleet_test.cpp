// Firefox beyond one local launch: a remote Firefox through a W3C WebDriver server (a session asked with
// "webSocketUrl": true, driven over its WebDriver BiDi socket), and batch, whose tasks each get a user context of
// their own on a worker's Firefox. The WebDriver server is support/gecko_driver.h: Firefox's own Marionette makes the
// session, as under geckodriver.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <cerrno>
#include <set>

#include "browser/browser.h"
#include "fleet/fleet.h"
#include "hints/hints.h"
#include "launch/launch.h"
#include "support/batch_world.h"
#include "support/browser_options.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/gecko_driver.h"
#include "support/shared_browser.h"
#include "support/site_server.h"
#include "vision/vision.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;
using test::GeckoDriver;

bool gone(pid_t pid) {
  return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

std::unique_ptr<test::SiteServer> two_pages() {
  return std::make_unique<test::SiteServer>([](httplib::Server& s) {
    s.Get("/start", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<!doctype html><title>Start</title><a href='/next'>Next page</a>", "text/html");
    });
    s.Get("/next", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<!doctype html><title>Arrived</title><p>here", "text/html");
    });
  });
}

TEST(RemoteFirefox, ATabOnAWebDriverSessionWorksInItsBiDiSessionAndClosingEndsIt) {
  GeckoDriver driver;
  auto site = two_pages();
  fleet::BrowserOptions options;
  options.engine = launch::Engine::Firefox;
  auto transport = fleet::connect_browser(driver.url(), options);
  ASSERT_TRUE(transport) << transport.error().describe();
  auto tab = browser::Tab::open(std::make_shared<wire::Connection>(std::move(*transport)), {}, launch::Engine::Firefox);
  ASSERT_TRUE(tab) << tab.error().describe();

  const auto sessions = driver.sessions();
  ASSERT_EQ(sessions.size(), 1U);
  ASSERT_FALSE(sessions[0].id.empty());
  // What was asked: BiDi's socket, and the prefs vimgpt's own Firefox gets (clicks that reach cross-origin frames).
  EXPECT_EQ(sessions[0].asked["browserName"], "firefox");
  EXPECT_EQ(sessions[0].asked["webSocketUrl"], true);
  EXPECT_EQ(sessions[0].asked["moz:firefoxOptions"]["prefs"]["remote.events.async.mouse.enabled"], true);

  ASSERT_TRUE((*tab)->navigate(site->url("/start")));
  auto map = hints::find_hints(**tab);
  ASSERT_TRUE(map) << map.error().describe();
  ASSERT_EQ(map->size(), 1U);
  auto clicked = hints::click_label(**tab, *map, map->hints().front().label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  ASSERT_TRUE((*tab)->settle(std::chrono::seconds(10)));
  EXPECT_EQ((*tab)->title().value_or(""), "Arrived");
  EXPECT_EQ(site->count("GET", "/next"), 1);

  (*tab)->close();
  tab->reset();  // the last reference to the connection: the WebDriver session is deleted
  EXPECT_TRUE(driver.sessions()[0].deleted);
  EXPECT_TRUE(gone(sessions[0].firefox));
}

TEST(RemoteFirefox, ARunDrivesTheSessionsFirefoxAndEndsTheSession) {
  GeckoDriver driver;
  auto site = two_pages();
  test::FakeModelServer model{test::Expectations{"test-key", std::string(vision::kDefaultModel),
                                                 test::default_frame_width(), 1, test::Requirement::Any}};
  int step = 0;
  model.set_responder([&step](const test::ReceivedRequest& request) {
    return test::ScriptedReply::text(step++ == 0
                                         ? R"({"click": ")" + test::label_in_prompt(request.text, "Next page") + "\"}"
                                         : R"({"done": "arrived"})");
  });
  const auto run = test::run_vimgpt({"go to the next page", "--engine", "firefox", "--browser", driver.url(),
                                     "--base-url", model.url(), "--api-key", "test-key", "--observe", "hybrid",
                                     "--start-url", site->url("/start"), "--max-retries", "0", "--max-steps", "4"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("arrived"), std::string::npos) << run.out;
  EXPECT_EQ(site->count("GET", "/next"), 1);
  const auto sessions = driver.sessions();
  ASSERT_EQ(sessions.size(), 1U);
  EXPECT_TRUE(sessions[0].deleted);
  EXPECT_TRUE(gone(sessions[0].firefox));
}

// A session without a BiDi socket (the capability patched out) cannot be driven: the run says why, and the session
// is not left running.
TEST(RemoteFirefox, ASessionWithoutABiDiSocketIsRefusedAndDeleted) {
  GeckoDriver driver;
  const auto run = test::run_vimgpt({"anything", "--engine", "firefox", "--browser", driver.url(),
                                     "--webdriver-capabilities", R"({"webSocketUrl": null})", "--base-url",
                                     "http://127.0.0.1:9", "--api-key", "test-key", "--max-retries", "0"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("webSocketUrl"), std::string::npos) << run.err;
  const auto sessions = driver.sessions();
  ASSERT_EQ(sessions.size(), 1U);
  EXPECT_FALSE(sessions[0].id.empty()) << run.err;
  EXPECT_TRUE(sessions[0].deleted);
}

// A Firefox started by someone else (here as vimgpt starts its own), reached at its own BiDi socket as Firefox
// announces it: each run opens a BiDi session there and ends it, so the next run gets one, and the browser stays up; a
// run while another client holds the session (Firefox takes one at a time) says so, and loses nothing.
TEST(RemoteFirefox, RunsOnAFirefoxsOwnSocketEndTheirSessionsAndLeaveItRunning) {
  auto firefox = launch::launch_firefox(test::loopback_only_launch(launch::Engine::Firefox));
  ASSERT_TRUE(firefox) << firefox.error().describe();
  std::string url = test::bidi_socket_url(**firefox);
  ASSERT_TRUE(url.ends_with("/session")) << url;
  url.resize(url.size() - std::string_view("/session").size());  // ws://127.0.0.1:PORT, as Firefox prints it
  auto site = two_pages();
  test::FakeModelServer model{test::Expectations{"test-key", std::string(vision::kDefaultModel),
                                                 test::default_frame_width(), 1, test::Requirement::Any}};
  int step = 0;
  model.set_responder([&step](const test::ReceivedRequest& request) {
    return test::ScriptedReply::text(step++ % 2 == 0
                                         ? R"({"click": ")" + test::label_in_prompt(request.text, "Next page") + "\"}"
                                         : R"({"done": "arrived"})");
  });
  const auto run = [&] {
    return test::run_vimgpt({"go to the next page", "--engine", "firefox", "--browser", url, "--base-url", model.url(),
                             "--api-key", "test-key", "--observe", "hybrid", "--start-url", site->url("/start"),
                             "--max-retries", "0", "--max-steps", "4"});
  };
  for (int i = 1; i <= 2; ++i) {
    const auto done = run();
    ASSERT_EQ(done.exit_code, 0) << "run " << i << ": " << done.err;
    EXPECT_NE(done.out.find("arrived"), std::string::npos) << done.out;
    EXPECT_EQ(site->count("GET", "/next"), i);
  }
  EXPECT_EQ(::kill((*firefox)->process_id(), 0), 0) << "the runs closed a browser that was not theirs";

  fleet::BrowserOptions options;
  options.engine = launch::Engine::Firefox;
  auto holder = fleet::connect_browser(url, options);
  ASSERT_TRUE(holder) << holder.error().describe();
  const auto refused = run();
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("one client at a time"), std::string::npos) << refused.err;
  EXPECT_EQ(model.request_count(), 4U);  // no model call for the refused run
  holder->reset();                       // its session ends with it
  EXPECT_EQ(run().exit_code, 0);
}

// The flag wins over VIMGPT_ENGINE (the test support sets it to the test's engine, Chromium here).
TEST(RemoteFirefox, ADevToolsEndpointIsChromiumsAndSaysSo) {
  const auto run = test::run_vimgpt(
      {"anything", "--engine", "firefox", "--browser", "ws://127.0.0.1:9/devtools/browser/x", "--api-key", "k"});
  EXPECT_EQ(run.exit_code, 64) << run.err;  // a usage error
  EXPECT_NE(run.err.find("webdriver+http://"), std::string::npos) << run.err;
}

// Tasks on one worker's Firefox run one after another, each in a user context of its own: a task's cookie never
// reaches another task.
void expect_isolated_tasks(test::Site& site, const std::vector<nlohmann::json>& results, std::size_t tasks) {
  ASSERT_EQ(results.size(), tasks);
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "done") << line.dump();
    EXPECT_EQ(line["answer"], "answer-" + line["id"].get<std::string>());
  }
  test::expect_isolated_visits(site, static_cast<int>(tasks));
}

TEST(FirefoxBatch, EachTaskOnAWorkersFirefoxHasAUserContextOfItsOwn) {
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  auto args = test::batch_args(dir.tasks(site.base(), 3), dir.out(), model, 1, {});
  args.insert(args.end(), {"--engine", "firefox"});
  const auto run = test::run_vimgpt(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.left_behind);
  const auto results = test::read_results(dir.out());
  expect_isolated_tasks(site, results, 3);
  for (const auto& line : results) EXPECT_EQ(line["browser"], "local-1");
}

TEST(FirefoxBatch, TasksOnAWebDriverServerGetASessionPerWorker) {
  GeckoDriver driver;
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  auto args = test::batch_args(dir.tasks(site.base(), 4), dir.out(), model, 2, {driver.url()});
  args.insert(args.end(), {"--engine", "firefox"});
  const auto run = test::run_vimgpt(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_isolated_tasks(site, test::read_results(dir.out()), 4);
  const auto sessions = driver.sessions();
  ASSERT_EQ(sessions.size(), 2U);
  for (const auto& session : sessions) {
    EXPECT_TRUE(session.deleted);
    EXPECT_TRUE(gone(session.firefox));
  }
}

}  // namespace
}  // namespace vimgpt
