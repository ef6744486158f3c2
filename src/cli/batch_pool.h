// Private to batch.cpp and batch_queue.cpp: what `vimgpt batch`'s workers share, whether their tasks come from a
// file (batch.cpp) or from a shared queue (batch_queue.cpp).
#pragma once

#include <chrono>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/batch.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "fleet/fleet.h"

namespace vimgpt::cli::batch_pool {

// A browser tasks run on, each task in a context of its own: a DevTools endpoint its workers share (one browser), or
// one worker's own browser (a local Chromium or Firefox, a WebDriver session), which that worker opens itself, so a
// request queued by a busy Grid holds up no other worker, and opens again when it dies (--max-restarts times).
struct Endpoint {
  std::string name;
  std::function<Result<std::shared_ptr<wire::Connection>>()> open;  // a worker's own: opens it; empty: shared
  std::shared_ptr<wire::Connection> connection;  // under Batch::mutex; null until opened, and once its worker left
  bool dead = false;                             // under Batch::mutex
  int reopened = 0;
};

// Where one worker's tasks run: its own browser, else the shared endpoints, its URL's first.
struct Seat {
  Endpoint* own = nullptr;
  std::size_t preferred = 0;  // into the shared endpoints
};

struct QueuedTask {
  BatchTask task;
  int attempts = 0;
};

// Everything the workers share, under one mutex.
// Everything the workers share, under one mutex.
struct Batch {
  std::mutex mutex;
  std::deque<QueuedTask> queue;
  std::ofstream out;
  int done = 0;
  int failed = 0;
  int running = 0;
  int retried = 0;
  vision::Usage usage;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  int total = 0;
  bool from_file = true;                   // false with --queue, where what is left is the queue's to say
  std::optional<std::int64_t> queue_left;  // --queue: tasks waiting or running anywhere, as last asked
  int browsers_opened = 0;
  StatusLine status;  // on a terminal, the counts redrawn in place; on a log, a plain line per finished task

  explicit Batch(bool terminal);

  // A task file's batch is over once no task waits and none runs (a running one could come back): a worker still
  // waiting for its browser then gives up the wait.
  [[nodiscard]] bool over_locked() const { return from_file && queue.empty() && running == 0; }
  // A line of news between results, clear of the status line.
  void say_locked(const std::string& text) { status.say(text); }
  // Tasks not finished yet: the file's, or the queue's as it last said.
  [[nodiscard]] std::optional<std::int64_t> left_locked() const;
  // The status line drawn again with the counts as they are.
  void progress_locked();
};

// The run's settings (every flag checked once) and where task records go.
struct TaskSettings {
  const Options* options;
  RunSettings run;
  std::string record_root;
  CacheSettings cache;           // dir empty: no cache
  live::Server* live = nullptr;  // --live: a tile per task under way
};

struct QueueSettings {
  fleet::QueueUrl url;
  std::chrono::milliseconds claim_idle{60000};
  std::string consumer;  // this process's name in the consumer group: host and pid
};

// The browser a worker runs its next task on (its own, opened now when it is not yet, else a shared endpoint still
// alive); null when it has none left, and the worker leaves.
Endpoint* worker_browser(Batch& batch, std::vector<std::unique_ptr<Endpoint>>& shared, const Seat& seat,
                         std::shared_ptr<wire::Connection>& connection);
// One task on `connection`: its result line. `endpoint_died`: the browser is gone with it.
nlohmann::json run_task(const TaskSettings& settings, const BatchTask& task, const std::string& browser_name,
                        const std::shared_ptr<wire::Connection>& connection, bool& endpoint_died);
// Counts a task's result line and reports it on stderr (under Batch::mutex).
void count_result_locked(Batch& batch, const nlohmann::json& line);
// A browser that died: a worker's own is opened again (the run's --max-restarts times), a shared one is left out.
void replace_or_drop(Batch& batch, Endpoint& endpoint, const std::shared_ptr<wire::Connection>& dead, int max_restarts);

// A worker taking tasks from the shared queue until it is drained (batch_queue.cpp).
void queue_worker(const TaskSettings& settings, Batch& batch, std::vector<std::unique_ptr<Endpoint>>& shared,
                  const Seat& seat, const QueueSettings& queue_settings, int number);

}  // namespace vimgpt::cli::batch_pool
