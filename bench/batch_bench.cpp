// Batch throughput and memory: 16 two-step tasks (instant fake model) through `vimgpt batch` on one
// Chromium reached over WebSocket, at 1, 2 and 4 workers. Prints tasks/min, the mean task time, how much
// the browser grows per concurrent task, and the vimgpt process's peak RSS. Not a Google Benchmark: each
// figure is one whole batch run, driven through the real binary as a user would run it.
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/proc.h"
#include "support/remote_chromium.h"

namespace {

using namespace vimgpt;
using namespace std::chrono_literals;

// Resident memory (kB) of every process in the group `pid` (a Chromium and its helpers), or of one pid.
long resident_kb(pid_t pid, bool whole_group) {
  long total = 0;
  for (const pid_t process : test::all_processes()) {
    // A process that exits while it is read is simply not counted (test::read_proc gives nullopt).
    const auto stat = test::read_proc(process, "stat");
    if (!stat) continue;
    const auto close = stat->rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat->substr(close + 2));
    std::string state;
    long ppid = 0;
    long pgrp = 0;
    fields >> state >> ppid >> pgrp;
    if (whole_group ? pgrp != pid : process != pid) continue;
    std::istringstream status(test::read_proc(process, "status").value_or(""));
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) total += std::stol(line.substr(6));
    }
  }
  return total;
}

}  // namespace

int main() {
  test::RemoteChromium chromium;
  if (!chromium.ready()) {
    std::fprintf(stderr, "batch_bench: the remote Chromium did not start\n");
    return 1;
  }
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  constexpr int kTasks = 16;
  std::printf("{\"tasks\": %d, \"runs\": [", kTasks);
  for (int parallel : {1, 2, 4}) {
    test::BatchDir dir;
    std::atomic<bool> running{true};
    std::atomic<long> peak_browser{0};
    std::atomic<long> peak_vimgpt{0};
    std::atomic<pid_t> child{0};
    const long idle_browser = resident_kb(chromium.pid(), true);
    std::thread sampler([&] {
      while (running) {
        peak_browser = std::max(peak_browser.load(), resident_kb(chromium.pid(), true));
        if (child != 0) peak_vimgpt = std::max(peak_vimgpt.load(), resident_kb(child, false));
        ::poll(nullptr, 0, 100);  // a sampling period, not a wait for anything
      }
    });
    const auto start = std::chrono::steady_clock::now();
    const auto run = test::run_vimgpt(
        test::batch_args(dir.tasks(site.base(), kTasks), dir.out(), model, parallel, {chromium.ws_url()}),
        [&](pid_t pid) { child = pid; });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    running = false;
    sampler.join();
    if (run.exit_code != 0) {
      std::fprintf(stderr, "batch_bench: vimgpt batch exited %d\n%s\n", run.exit_code, run.err.c_str());
      return 1;
    }
    double task_seconds = 0;
    for (const auto& line : test::read_results(dir.out())) task_seconds += line["seconds"].get<double>();
    std::printf(
        "%s{\"parallel\": %d, \"seconds\": %.2f, \"tasks_per_min\": %.1f, \"mean_task_s\": %.2f, "
        "\"browser_mb_per_task\": %ld, \"vimgpt_peak_rss_mb\": %ld}",
        parallel == 1 ? "" : ", ", parallel, seconds, kTasks * 60.0 / seconds, task_seconds / kTasks,
        (peak_browser - idle_browser) / 1024 / parallel, peak_vimgpt / 1024);
    std::fflush(stdout);
  }
  std::printf("]}\n");
  return 0;
}
