// `vimgpt batch` through the real binary: eight tasks on a loopback site, the fake model, two Chromium
// processes reached over WebSocket (started here with --remote-debugging-port=0), four workers.
#include <gtest/gtest.h>

#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <algorithm>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/remote_chromium.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::batch_args;
using test::BatchDir;
using test::FakeModelServer;
using test::read_results;
using test::RemoteChromium;
using test::script_model;
using test::ScriptedReply;
using test::Site;

// Bounded wait on a condition another process or thread makes true.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    ::poll(nullptr, 0, 10);
  }
  return condition();
}

// Two tasks' results: t1's line checked by `t1`, the other task done, untouched by what t1 met.
void expect_only_t1_apart(const std::vector<nlohmann::json>& results, const test::CliRun& run,
                          const std::function<void(const nlohmann::json&)>& t1) {
  ASSERT_EQ(results.size(), 2U) << run.err;
  for (const auto& line : results) {
    if (line["id"] == "t1") {
      t1(line);
    } else {
      EXPECT_EQ(line["status"], "done") << line.dump();
    }
  }
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

  test::expect_isolated_visits(site, 8);
}

TEST(Batch, ABrowserKilledMidBatchHandsItsTasksToTheOther) {
  RemoteChromium a;
  RemoteChromium b;
  ASSERT_TRUE(a.ready() && b.ready());
  Site site;
  FakeModelServer model;
  const std::string base = site.base();
  // Each task's first reply waits until all four workers have asked: then every worker is inside its first
  // step (workers 1 and 3 on A, 2 and 4 on B), and A dies under two tasks that still need it.
  std::mutex gate_mutex;
  std::condition_variable gate;
  int asking = 0;
  bool released = false;
  script_model(model, base, 300ms, [&] {
    std::unique_lock lock(gate_mutex);
    ++asking;
    gate.notify_all();
    gate.wait_for(lock, 30s, [&] { return released; });
  });
  BatchDir dir;
  const auto run =
      test::run_vimgpt(batch_args(dir.tasks(base, 8), dir.out(), model, 4, {a.ws_url(), b.ws_url()}), [&](pid_t) {
        {
          std::unique_lock lock(gate_mutex);
          EXPECT_TRUE(gate.wait_for(lock, 30s, [&] { return asking >= 4; }));
        }
        a.kill();
        {
          std::scoped_lock lock(gate_mutex);
          released = true;
        }
        gate.notify_all();
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

// Two machines of a Slurm array (--shard 0/2 here, --shard auto from SLURM_ARRAY_TASK_* there) each run their part
// of one task file into their own results file; together every task once.
TEST(Batch, ShardsOfOneFileAreDisjointAndCoverIt) {
  RemoteChromium a;
  ASSERT_TRUE(a.ready());
  Site site;
  FakeModelServer model;
  script_model(model, site.base(), 0ms);
  BatchDir dir;
  const std::string tasks = dir.tasks(site.base(), 8);
  const std::string out0 = (dir.root / "results-0.jsonl").string();
  const std::string out1 = (dir.root / "results-1.jsonl").string();
  auto first = batch_args(tasks, out0, model, 2, {a.ws_url()});
  first.insert(first.end(), {"--shard", "0/2"});
  const auto run0 = test::run_vimgpt(first);
  ASSERT_EQ(run0.exit_code, 0) << run0.err;
  auto second = batch_args(tasks, out1, model, 2, {a.ws_url()});
  second.insert(second.end(), {"--shard", "auto"});
  ::setenv("SLURM_ARRAY_TASK_ID", "2", 1);  // sbatch --array=1-2: the second task
  ::setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
  ::setenv("SLURM_ARRAY_TASK_COUNT", "2", 1);
  const auto run1 = test::run_vimgpt(second);
  for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"}) ::unsetenv(name);
  ASSERT_EQ(run1.exit_code, 0) << run1.err;

  std::set<std::string> ids0;
  std::set<std::string> ids1;
  for (const auto& line : read_results(out0)) ids0.insert(line["id"].get<std::string>());
  for (const auto& line : read_results(out1)) ids1.insert(line["id"].get<std::string>());
  EXPECT_FALSE(ids0.empty());
  EXPECT_FALSE(ids1.empty());
  std::set<std::string> all = ids0;
  all.insert(ids1.begin(), ids1.end());
  EXPECT_EQ(all.size(), ids0.size() + ids1.size());  // disjoint
  EXPECT_EQ(all, (std::set<std::string>{"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"}));
  EXPECT_NE(run0.err.find("shard 0 of 2: " + std::to_string(ids0.size()) + " of 8 tasks"), std::string::npos)
      << run0.err;
  EXPECT_NE(run1.err.find("shard 1 of 2: " + std::to_string(ids1.size()) + " of 8 tasks"), std::string::npos)
      << run1.err;

  // Resuming is per shard: its own results file has all its tasks.
  const auto again = test::run_vimgpt(first);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("nothing to do"), std::string::npos) << again.err;
  EXPECT_EQ(read_results(out0).size(), ids0.size());
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

// A worker's own browser that dies is opened again, and the task it was running runs again on the new one.
TEST(Batch, AWorkersOwnChromiumThatDiesIsOpenedAgain) {
  Site site;
  FakeModelServer model;
  const std::string base = site.base();
  std::mutex mutex;
  std::condition_variable asked;
  bool first_asked = false;
  bool killed = false;
  script_model(model, base, 0ms, [&] {
    std::unique_lock lock(mutex);
    if (first_asked) return;  // only the first task's first reply waits for the kill
    first_asked = true;
    asked.notify_all();
    asked.wait_for(lock, 30s, [&] { return killed; });
  });
  BatchDir dir;
  const auto run = test::run_vimgpt(batch_args(dir.tasks(base, 3), dir.out(), model, 1, {}), [&](pid_t) {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(asked.wait_for(lock, 60s, [&] { return first_asked; }));
    const pid_t browser = test::run_browser_pid();
    ASSERT_GT(browser, 0);
    EXPECT_TRUE(test::kill_and_wait(browser));
    killed = true;
    asked.notify_all();
  });
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.left_behind);
  EXPECT_NE(run.err.find("browser local-1 died; opened a new one (1 of 2)"), std::string::npos) << run.err;
  const auto results = read_results(dir.out());
  ASSERT_EQ(results.size(), 3U) << run.err;
  int again = 0;
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "done") << line.dump();
    EXPECT_EQ(line["browser"], "local-1");
    again += line["attempts"] == 2 ? 1 : 0;
  }
  EXPECT_EQ(again, 1);
}

TEST(Batch, ATaskWhoseModelAsksAQuestionEndsNeedsInputWithTheQuestion) {
  Site site;
  FakeModelServer model;
  model.set_responder([](const test::ReceivedRequest& request) {
    // Nobody is there to answer in a batch: t1's question ends t1 only.
    return ScriptedReply::text(request.text.find("task t1") != std::string::npos ? R"({"ask": "Which colour?"})"
                                                                                 : R"({"done": "fine"})");
  });
  BatchDir dir;
  const auto run = test::run_vimgpt(batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {}));
  const auto results = read_results(dir.out());
  ASSERT_EQ(results.size(), 2U) << run.err;
  for (const auto& line : results) {
    if (line["id"] == "t1") {
      EXPECT_EQ(line["status"], "needs_input") << line.dump();
      EXPECT_EQ(line["question"], "Which colour?");
      EXPECT_EQ(line["steps"], 1);
    } else {
      EXPECT_EQ(line["status"], "done") << line.dump();
      EXPECT_FALSE(line.contains("question"));
    }
  }
}

// --mode computer-use in a batch: each task speaks the provider's own computer tool, and a safety check the provider
// asks a person to acknowledge ends that task needs_input with the check as its question (nobody is there in a
// batch); the other tasks go on.
TEST(Batch, InComputerUseModeASafetyCheckEndsItsTaskNeedsInput) {
  Site site;
  FakeModelServer model;
  model.set_responder([](const test::ReceivedRequest& request) {
    if (request.text.find("task t1") == std::string::npos) return ScriptedReply::text("fine");
    return ScriptedReply::tool_use(nlohmann::json::array(
        {{{"name", "computer"},
          {"actions", {{{"type", "click"}, {"button", "left"}, {"x", 10}, {"y", 10}}}},
          {"pending_safety_checks",
           {{{"id", "sc_1"}, {"code", "irrelevant_domain"}, {"message", "Leaves the site."}}}}}}));
  });
  BatchDir dir;
  auto args = batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {});
  *(std::find(args.begin(), args.end(), "--model") + 1) = "gpt-5.5";
  args.insert(args.end(), {"--provider", "openai", "--api-key", "k", "--mode", "computer-use"});
  const auto run = test::run_vimgpt(args);
  expect_only_t1_apart(read_results(dir.out()), run, [](const nlohmann::json& t1) {
    EXPECT_EQ(t1["status"], "needs_input") << t1.dump();
    EXPECT_NE(t1.value("question", "").find("Leaves the site."), std::string::npos) << t1.dump();
  });
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  for (const auto& request : model.requests()) EXPECT_EQ(request.body["tools"][0]["type"], "computer");
}

// --confirm-risky in a batch: nobody is there to say yes, so a task whose model would leave the task's sites ends
// needs_input, saying what it would do and why it asks; the page was never left, and the other tasks go on.
TEST(Batch, WithConfirmRiskyARiskyActionEndsItsTaskNeedsInput) {
  Site site;
  FakeModelServer model;
  model.set_responder([](const test::ReceivedRequest& request) {
    return ScriptedReply::text(request.text.find("task t1") != std::string::npos
                                   ? R"({"navigate": "http://localhost:9/elsewhere"})"
                                   : R"({"done": "fine"})");
  });
  BatchDir dir;
  auto args = batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {});
  args.emplace_back("--confirm-risky");
  const auto run = test::run_vimgpt(args);
  expect_only_t1_apart(read_results(dir.out()), run, [](const nlohmann::json& t1) {
    EXPECT_EQ(t1["status"], "needs_input") << t1.dump();
    EXPECT_NE(t1.value("question", "").find("it leaves the task's sites for localhost"), std::string::npos)
        << t1.dump();
    EXPECT_EQ(t1["steps"], 1);
  });
}

// --verify in a batch: each task's answer is checked; one that fails every check ends unverified, its answer kept in
// its results line, and the other tasks are not touched by it.
TEST(Batch, WithVerifyATaskWhoseAnswerFailsEveryCheckEndsUnverified) {
  Site site;
  FakeModelServer model;
  model.set_responder([](const test::ReceivedRequest& request) {
    if (request.text.find("You check the work of a web-browsing agent") == std::string::npos) {
      return ScriptedReply::text(R"({"done": "fine"})");
    }
    return ScriptedReply::text(request.text.find("task t1") != std::string::npos
                                   ? R"({"pass": false, "reason": "nothing on the page says fine"})"
                                   : R"({"pass": true, "reason": "the page says so"})");
  });
  BatchDir dir;
  auto args = batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {});
  args.emplace_back("--verify");
  const auto run = test::run_vimgpt(args);
  const auto results = read_results(dir.out());
  ASSERT_EQ(results.size(), 2U) << run.err;
  for (const auto& line : results) {
    if (line["id"] == "t1") {
      EXPECT_EQ(line["status"], "unverified") << line.dump();
      EXPECT_EQ(line["answer"], "fine");
      EXPECT_NE(line.dump().find("nothing on the page says fine"), std::string::npos) << line.dump();
    } else {
      EXPECT_EQ(line["status"], "done") << line.dump();
    }
  }
  EXPECT_EQ(model.request_count(), 8U);  // t0: an answer and its check; t1: three answers, each checked
}

}  // namespace
}  // namespace vimgpt
