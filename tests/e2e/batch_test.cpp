// `vimgpt batch` through the real binary: eight tasks on a loopback site, the fake model, two Chromium
// processes reached over WebSocket (started here with --remote-debugging-port=0), four workers.
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/remote_chromium.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::FakeModelServer;
using test::RemoteChromium;
using test::ScriptedReply;

struct Visit {
  std::string id;
  std::string step;
  std::string cookie;
};

// A site whose /visit page sets a cookie naming the task and records the cookies each request brought.
struct Site {
  std::mutex mutex;
  std::vector<Visit> visits;
  std::unique_ptr<test::SiteServer> server;

  [[nodiscard]] std::string base() const { return "http://127.0.0.1:" + std::to_string(server->port()); }

  Site() {
    server = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      s.Get("/visit", [this](const httplib::Request& req, httplib::Response& res) {
        {
          std::scoped_lock lock(mutex);
          visits.push_back({req.get_param_value("id"), req.get_param_value("step"), req.get_header_value("Cookie")});
        }
        res.set_header("Set-Cookie", "task=" + req.get_param_value("id") + "; Path=/");
        res.set_content("<!doctype html><title>visit</title><a href='/visit'>again</a>", "text/html");
      });
    });
  }
};

// Each task takes two steps: navigate to its second page, then answer "answer-<id>".
void script_model(FakeModelServer& model, const std::string& site_url, std::chrono::milliseconds delay) {
  auto seen = std::make_shared<std::pair<std::mutex, std::map<std::string, int>>>();
  model.set_responder([seen, site_url, delay](const test::ReceivedRequest& request) {
    std::smatch match;
    const std::regex task_id(R"(task (t\d+))");
    if (!std::regex_search(request.text, match, task_id)) return ScriptedReply::status_code(400, "no task id");
    const std::string id = match[1];
    int count = 0;
    {
      std::scoped_lock lock(seen->first);
      count = ++seen->second[id];
    }
    ScriptedReply reply =
        ScriptedReply::text(count % 2 == 1 ? R"({"navigate": ")" + site_url + "/visit?id=" + id + R"(&step=2"})"
                                           : R"({"done": "answer-)" + id + R"("})");
    reply.delay = delay;
    return reply;
  });
}

struct BatchDir {
  fs::path root = fs::temp_directory_path() / ("vimgpt-batch-" + std::to_string(::getpid()));
  BatchDir() { fs::create_directories(root); }
  ~BatchDir() { fs::remove_all(root); }
  [[nodiscard]] std::string tasks(const std::string& site_url, int count) const {
    const auto path = root / "tasks.jsonl";
    std::ofstream out(path);
    for (int i = 1; i <= count; ++i) {
      const std::string id = "t" + std::to_string(i);
      out << nlohmann::json{{"id", id},
                            {"objective", "task " + id + ": visit and report"},
                            {"start_url", site_url + "/visit?id=" + id + "&step=1"},
                            {"max_steps", 4},
                            {"answer", "answer-" + id}}
                 .dump()
          << "\n";
    }
    return path.string();
  }
  [[nodiscard]] std::string out() const { return (root / "results.jsonl").string(); }
};

std::vector<nlohmann::json> read_results(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

std::vector<std::string> batch_args(const std::string& tasks, const std::string& out, const FakeModelServer& model,
                                    int parallel, const std::vector<std::string>& browsers) {
  std::vector<std::string> args = {"batch",   tasks,    "--parallel",  std::to_string(parallel),
                                   "--out",   out,      "--base-url",  model.url(),
                                   "--model", "gpt-4o", "--settle-ms", "500"};
  for (const auto& browser : browsers) {
    args.emplace_back("--browser");
    args.push_back(browser);
  }
  return args;
}

// Bounded wait on a condition another process or thread makes true.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    ::poll(nullptr, 0, 10);
  }
  return condition();
}

TEST(Batch, EightTasksOnTwoBrowsersAllEndWithIsolatedContexts) {
  RemoteChromium a;
  RemoteChromium b;
  ASSERT_TRUE(a.ready() && b.ready());
  Site site;
  FakeModelServer model;
  script_model(model, site.base(), 0ms);
  BatchDir dir;
  const std::string record = (dir.root / "runs").string();
  auto args = batch_args(dir.tasks(site.base(), 8), dir.out(), model, 4, {a.http_url(), b.ws_url()});
  args.insert(args.end(), {"--record-dir", record});
  const auto run = test::run_vimgpt(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const auto results = read_results(dir.out());
  ASSERT_EQ(results.size(), 8U) << run.err;
  std::set<std::string> ids;
  std::set<std::string> browsers;
  for (const auto& line : results) {
    ids.insert(line["id"].get<std::string>());
    browsers.insert(line["browser"].get<std::string>());
    EXPECT_EQ(line["status"], "done") << line.dump();
    EXPECT_EQ(line["answer"], "answer-" + line["id"].get<std::string>());
    EXPECT_EQ(line["match"], "exact");
    EXPECT_EQ(line["steps"], 2);
    EXPECT_GT(line["tokens"].get<int>(), 0);
    EXPECT_TRUE(line.contains("cost_usd") && line.contains("seconds"));
    EXPECT_EQ(line["record_dir"], record + "/" + line["id"].get<std::string>());
    EXPECT_TRUE(fs::exists(fs::path(line["record_dir"].get<std::string>()) / "steps.jsonl"));
  }
  EXPECT_EQ(ids.size(), 8U);
  EXPECT_EQ(browsers, (std::set<std::string>{a.http_url(), b.ws_url()}));  // tasks spread over both

  // Isolation: a task's requests carry its own cookie at most, never another task's.
  std::scoped_lock lock(site.mutex);
  int with_own_cookie = 0;
  for (const auto& visit : site.visits) {
    EXPECT_TRUE(visit.cookie.empty() || visit.cookie == "task=" + visit.id) << visit.id << " sent " << visit.cookie;
    if (visit.step == "1") {
      EXPECT_EQ(visit.cookie, "") << visit.id;
    }
    if (visit.step == "2" && visit.cookie == "task=" + visit.id) ++with_own_cookie;
  }
  EXPECT_EQ(with_own_cookie, 8);  // cookies do work within a task
}

TEST(Batch, ABrowserKilledMidBatchHandsItsTasksToTheOther) {
  RemoteChromium a;
  RemoteChromium b;
  ASSERT_TRUE(a.ready() && b.ready());
  Site site;
  FakeModelServer model;
  const std::string base = site.base();
  script_model(model, base, 300ms);
  BatchDir dir;
  const auto run =
      test::run_vimgpt(batch_args(dir.tasks(base, 8), dir.out(), model, 4, {a.ws_url(), b.ws_url()}), [&](pid_t) {
        // Kill A once all four workers are in their first step.
        EXPECT_TRUE(wait_until([&] { return model.request_count() >= 4; }, 30s));
        a.kill();
      });
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto results = read_results(dir.out());
  ASSERT_EQ(results.size(), 8U) << run.err;
  std::set<std::string> ids;
  int moved = 0;
  for (const auto& line : results) {
    ids.insert(line["id"].get<std::string>());
    EXPECT_EQ(line["status"], "done") << line.dump();
    if (line["attempts"] == 2) {
      ++moved;
      EXPECT_EQ(line["browser"], b.ws_url());
    }
  }
  EXPECT_EQ(ids.size(), 8U);
  EXPECT_GE(moved, 1) << run.err;
  EXPECT_NE(run.err.find("is gone"), std::string::npos) << run.err;
}

TEST(Batch, ResumingAfterCtrlCRunsOnlyTheMissingIds) {
  RemoteChromium a;
  ASSERT_TRUE(a.ready());
  Site site;
  FakeModelServer model;
  const std::string base = site.base();
  script_model(model, base, 200ms);
  BatchDir dir;
  const auto tasks = dir.tasks(base, 8);
  const auto first = test::run_vimgpt(batch_args(tasks, dir.out(), model, 2, {a.http_url()}), [&](pid_t pid) {
    EXPECT_TRUE(wait_until([&] { return read_results(dir.out()).size() >= 2; }, 60s));
    ::kill(pid, SIGINT);
  });
  EXPECT_EQ(first.exit_code, 130) << first.err;
  const auto partial = read_results(dir.out());
  ASSERT_GE(partial.size(), 2U);
  ASSERT_LT(partial.size(), 8U);
  std::set<std::string> done_before;
  for (const auto& line : partial) done_before.insert(line["id"].get<std::string>());

  const std::size_t requests_before = model.request_count();
  const auto second = test::run_vimgpt(batch_args(tasks, dir.out(), model, 2, {a.http_url()}));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto requests = model.requests();
  std::set<std::string> asked;
  for (std::size_t i = requests_before; i < requests.size(); ++i) {
    std::smatch match;
    ASSERT_TRUE(std::regex_search(requests[i].text, match, std::regex(R"(task (t\d+))")));
    asked.insert(match[1]);
  }
  for (const auto& id : asked) EXPECT_EQ(done_before.count(id), 0U) << id << " ran twice";
  EXPECT_EQ(asked.size(), 8 - done_before.size());
  const auto results = read_results(dir.out());
  std::set<std::string> ids;
  for (const auto& line : results) ids.insert(line["id"].get<std::string>());
  EXPECT_EQ(results.size(), 8U);
  EXPECT_EQ(ids.size(), 8U);
}

TEST(Batch, WithoutABrowserEachWorkerLaunchesItsOwnChromium) {
  Site site;
  FakeModelServer model;
  const std::string base = site.base();
  script_model(model, base, 0ms);
  BatchDir dir;
  const auto run = test::run_vimgpt(batch_args(dir.tasks(base, 3), dir.out(), model, 2, {}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.left_behind);
  const auto results = read_results(dir.out());
  ASSERT_EQ(results.size(), 3U);
  std::set<std::string> browsers;
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "done") << line.dump();
    browsers.insert(line["browser"].get<std::string>());
  }
  EXPECT_EQ(browsers, (std::set<std::string>{"local-1", "local-2"}));
}

}  // namespace
}  // namespace vimgpt

namespace vimgpt {
namespace {

// Resident memory (kB) of every process in the group `pgid` (a Chromium and its helpers), or of one pid.
long resident_kb(pid_t pid, bool whole_group) {
  long total = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    std::string state;
    long ppid = 0;
    long pgrp = 0;
    fields >> state >> ppid >> pgrp;
    if (whole_group ? pgrp != pid : std::stol(name) != pid) continue;
    std::ifstream status(entry.path() / "status");
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) total += std::stol(line.substr(6));
    }
  }
  return total;
}

// Not a test: figures for the issue's closing note. Run with --gtest_also_run_disabled_tests.
TEST(BatchBench, DISABLED_ThroughputAndMemory) {
  RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  Site site;
  FakeModelServer model;
  script_model(model, site.base(), 0ms);
  constexpr int kTasks = 16;
  for (int parallel : {1, 2, 4}) {
    BatchDir dir;
    std::atomic<bool> running{true};
    std::atomic<long> peak_browser{0};
    std::atomic<long> peak_vimgpt{0};
    std::atomic<pid_t> child{0};
    const long idle_browser = resident_kb(chromium.pid(), true);
    std::thread sampler([&] {
      while (running) {
        peak_browser = std::max(peak_browser.load(), resident_kb(chromium.pid(), true));
        if (child != 0) peak_vimgpt = std::max(peak_vimgpt.load(), resident_kb(child, false));
        ::poll(nullptr, 0, 100);
      }
    });
    const auto start = std::chrono::steady_clock::now();
    const auto run =
        test::run_vimgpt(batch_args(dir.tasks(site.base(), kTasks), dir.out(), model, parallel, {chromium.ws_url()}),
                         [&](pid_t pid) { child = pid; });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    running = false;
    sampler.join();
    ASSERT_EQ(run.exit_code, 0) << run.err;
    double task_seconds = 0;
    for (const auto& line : read_results(dir.out())) task_seconds += line["seconds"].get<double>();
    std::printf(
        "parallel %d: %d tasks in %.2fs = %.1f tasks/min; mean task %.2fs (2 steps, instant model); "
        "browser RSS +%ld MB over idle (%ld MB per concurrent task); vimgpt peak RSS %ld MB\n",
        parallel, kTasks, seconds, kTasks * 60.0 / seconds, task_seconds / kTasks, (peak_browser - idle_browser) / 1024,
        (peak_browser - idle_browser) / 1024 / parallel, peak_vimgpt / 1024);
  }
}

}  // namespace
}  // namespace vimgpt
