// The shared queue's price: 16 two-step tasks (instant fake model) on one Chromium reached over WebSocket, at
// 1, 2 and 4 workers, through `vimgpt batch TASKS --out` (in-process) and through a real redis-server queue
// (`vimgpt queue push`, `vimgpt batch --queue`, `vimgpt queue collect`, all three timed), alternating
// in-process and queue run by run. Prints the median tasks a minute of each, the ratio, and the load average.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/redis_server.h"
#include "support/remote_chromium.h"

namespace {

using namespace vimgpt;
using namespace std::chrono_literals;

constexpr int kTasks = 16;
constexpr int kRounds = 3;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

// Seconds the commands take together; 0 when one fails.
double timed(const std::vector<std::vector<std::string>>& commands) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& args : commands) {
    const auto run = test::run_vimgpt(args);
    if (run.exit_code != 0) {
      std::fprintf(stderr, "queue_bench: vimgpt %s exited %d\n%s\n", args.front().c_str(), run.exit_code,
                   run.err.c_str());
      return 0;
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
  test::RemoteChromium chromium;
  test::RedisServer redis;
  if (!chromium.ready() || !redis.ready()) {
    std::fprintf(stderr, "queue_bench: the remote Chromium or redis-server did not start\n");
    return 1;
  }
  test::Site site;
  test::FakeModelServer model;
  const std::string before = load_average();
  std::printf("{\"tasks\": %d, \"rounds\": %d, \"runs\": [", kTasks, kRounds);
  int queue_number = 0;
  for (int parallel : {1, 2, 4}) {
    std::vector<double> in_process;
    std::vector<double> queued;
    for (int round = 0; round < kRounds; ++round) {
      test::script_model(model, site.base(), 0ms);  // each run's tasks start from their first reply
      {
        test::BatchDir dir;
        const double seconds =
            timed({test::batch_args(dir.tasks(site.base(), kTasks), dir.out(), model, parallel, {chromium.ws_url()})});
        if (seconds == 0) return 1;
        in_process.push_back(kTasks * 60.0 / seconds);
      }
      test::script_model(model, site.base(), 0ms);
      {
        test::BatchDir dir;
        const std::string queue = redis.url("bench" + std::to_string(++queue_number));
        auto worker = test::batch_args("", "", model, parallel, {chromium.ws_url()});
        worker.erase(worker.begin() + 1);                      // no tasks file
        worker.erase(worker.begin() + 3, worker.begin() + 5);  // no --out
        worker.insert(worker.end(), {"--queue", queue});
        const double seconds = timed({{"queue", "push", dir.tasks(site.base(), kTasks), "--queue", queue},
                                      worker,
                                      {"queue", "collect", "--queue", queue, "--out", dir.out()}});
        if (seconds == 0 || test::read_results(dir.out()).size() != kTasks) return 1;
        queued.push_back(kTasks * 60.0 / seconds);
      }
    }
    std::printf(
        "%s{\"parallel\": %d, \"in_process_tasks_per_min\": %.1f, \"queue_tasks_per_min\": %.1f, "
        "\"ratio\": %.2f}",
        parallel == 1 ? "" : ", ", parallel, median(in_process), median(queued), median(queued) / median(in_process));
    std::fflush(stdout);
  }
  std::printf("], \"load_before\": \"%s\", \"load_after\": \"%s\"}\n", before.c_str(), load_average().c_str());
  return 0;
}
