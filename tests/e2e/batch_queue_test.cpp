// The shared queue end to end, through the real binary and a real redis-server: eight tasks pushed, one worker
// process SIGKILLed in the middle of a task, a second worker that takes the rest and, once the first has been
// silent for --claim-idle, the task it held; collect gives every id exactly once.
#include <gtest/gtest.h>
#include <signal.h>

#include <condition_variable>
#include <map>
#include <mutex>

#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/redis_server.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

// --claim-idle as people write it ("3s"; a plain 3 is seconds too), --settle-ms as it always was (milliseconds).
std::vector<std::string> worker_args(const std::string& queue, const test::FakeModelServer& model, int parallel) {
  return {"batch", "--queue",    queue,       "--parallel", std::to_string(parallel),           "--claim-idle",
          "3s",    "--base-url", model.url(), "--model",    std::string(vision::kDefaultModel), "--settle-ms",
          "500"};
}

TEST(Queue, AKilledWorkersTaskIsDoneByAnotherAndEveryIdComesBackOnce) {
  if (!test::RedisServer::installed()) GTEST_SKIP() << "no redis-server: scripts/setup.sh installs it";
  test::RedisServer redis;
  ASSERT_TRUE(redis.ready());
  test::Site site;
  test::FakeModelServer model;
  // The first task's first reply is held until worker A is dead, so A dies in the middle of that task.
  std::mutex mutex;
  std::condition_variable asked;
  bool first_asked = false;
  bool killed = false;
  test::script_model(model, site.base(), 0ms, [&] {
    std::unique_lock lock(mutex);
    if (first_asked) return;
    first_asked = true;
    asked.notify_all();
    asked.wait_for(lock, 60s, [&] { return killed; });
  });
  test::BatchDir dir;
  const std::string queue = redis.url("evals");

  const auto pushed = test::run_vimgpt({"queue", "push", dir.tasks(site.base(), 8), "--queue", queue});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  EXPECT_NE(pushed.err.find("pushed 8 tasks"), std::string::npos) << pushed.err;
  const auto again = test::run_vimgpt({"queue", "push", dir.tasks(site.base(), 8), "--queue", queue});
  EXPECT_NE(again.err.find("pushed 0 tasks; 8 ids were pushed before"), std::string::npos) << again.err;

  // Worker A dies, SIGKILLed, while its first task waits for the model.
  const auto worker_a = test::run_vimgpt(worker_args(queue, model, 1), [&](pid_t pid) {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(asked.wait_for(lock, 60s, [&] { return first_asked; }));
    ::kill(pid, SIGKILL);
    killed = true;
    asked.notify_all();
  });
  EXPECT_EQ(worker_a.exit_code, 128 + SIGKILL);
  ASSERT_EQ(model.request_count(), 1U);
  const std::string first_task = model.requests().front().text;
  const auto status = test::run_vimgpt({"queue", "status", "--queue", queue});
  EXPECT_NE(status.out.find("pushed 8  waiting 7  running 1  done 0  failed 0"), std::string::npos) << status.out;

  // Worker B takes the seven, then the one A held once A has been silent for 3 s (--claim-idle 3s).
  const auto rest = test::run_vimgpt(worker_args(queue, model, 2));
  ASSERT_EQ(rest.exit_code, 0) << rest.err;

  const std::string out = (dir.root / "collected.jsonl").string();
  const auto collected = test::run_vimgpt({"queue", "collect", "--queue", queue, "--out", out});
  ASSERT_EQ(collected.exit_code, 0) << collected.err;
  std::map<std::string, int> seen;
  int taken_over = 0;
  for (const auto& line : test::read_results(out)) {
    const std::string id = line["id"];
    ++seen[id];
    EXPECT_EQ(line["status"], "done") << line.dump();
    EXPECT_EQ(line["answer"], "answer-" + id) << line.dump();
    if (line["attempts"] == 2) {
      ++taken_over;
      EXPECT_NE(first_task.find("task " + id + ":"), std::string::npos) << id << " was not the killed worker's";
    }
  }
  EXPECT_EQ(seen.size(), 8U);
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
  EXPECT_EQ(taken_over, 1);
  const auto after = test::run_vimgpt({"queue", "status", "--queue", queue});
  EXPECT_NE(after.out.find("pushed 8  waiting 0  running 0  done 8  failed 0"), std::string::npos) << after.out;
  // Collecting again adds nothing: the file already has every id.
  const auto twice = test::run_vimgpt({"queue", "collect", "--queue", queue, "--out", out, "--follow"});
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_EQ(test::read_results(out).size(), 8U);
}

TEST(Queue, TlsAndAWrongFlagMixAreUsageErrors) {
  const auto tls = test::run_vimgpt({"queue", "status", "--queue", "rediss://127.0.0.1:1/q"});
  EXPECT_EQ(tls.exit_code, 64);
  EXPECT_NE(tls.err.find("no TLS"), std::string::npos) << tls.err;
  const auto both = test::run_vimgpt({"batch", "tasks.jsonl", "--queue", "redis://127.0.0.1:1/q", "--base-url",
                                      "http://127.0.0.1:1/v1", "--api-key", "sk-test"});
  EXPECT_EQ(both.exit_code, 64);
  EXPECT_NE(both.err.find("give no TASKS file"), std::string::npos) << both.err;
}

// Every duration flag takes units (500ms, 3s, 2m), a plain number in the flag's own unit, and refuses anything else
// with what to write instead, before anything starts.
TEST(Queue, DurationFlagsTakeUnitsAndABadOneSaysWhatToWrite) {
  const std::vector<std::string> queue_worker = {
      "batch", "--queue", "redis://127.0.0.1:1/q", "--base-url", "http://127.0.0.1:1/v1", "--api-key", "sk-test"};
  const auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = queue_worker;
    args.insert(args.end(), more.begin(), more.end());
    return test::run_vimgpt(args);
  };
  const auto words = with({"--claim-idle", "soon"});
  EXPECT_EQ(words.exit_code, 64);
  EXPECT_NE(words.err.find("--claim-idle: takes a duration such as 500ms, 3s, 2m or 1h (a plain number is seconds), "
                           "not 'soon'"),
            std::string::npos)
      << words.err;
  const auto short_claim = with({"--claim-idle", "2500ms"});
  EXPECT_EQ(short_claim.exit_code, 64);
  EXPECT_NE(short_claim.err.find("--claim-idle takes 3s or more"), std::string::npos) << short_claim.err;
  const auto settle = with({"--settle-ms", "fast"});
  EXPECT_EQ(settle.exit_code, 64);
  EXPECT_NE(settle.err.find("(a plain number is milliseconds)"), std::string::npos) << settle.err;
  const auto long_settle = with({"--settle-ms", "2m"});
  EXPECT_EQ(long_settle.exit_code, 64);
  EXPECT_NE(long_settle.err.find("--settle-ms takes up to 60000 (60s)"), std::string::npos) << long_settle.err;
  const auto timeout = with({"--timeout=-5"});
  EXPECT_EQ(timeout.exit_code, 64);
  EXPECT_NE(timeout.err.find("--timeout: takes a duration"), std::string::npos) << timeout.err;
  // Taken: units everywhere (the queue's address is refused next, so nothing runs).
  const auto taken = with({"--claim-idle", "1m30s", "--settle-ms", "1.5s", "--timeout", "2m", "--request-timeout",
                           "90s", "--connect-timeout", "500ms"});
  EXPECT_EQ(taken.exit_code, 1) << taken.err;
  EXPECT_EQ(taken.err.find("takes a duration"), std::string::npos) << taken.err;
  EXPECT_NE(taken.err.find("127.0.0.1:1"), std::string::npos) << taken.err;
}

}  // namespace
}  // namespace vimgpt
