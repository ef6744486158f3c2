// `vimgpt batch --queue`: workers that take their tasks from a shared queue (Redis Streams) and put the results back
// in it, a heartbeat telling the others each task under way is still held.
#include <algorithm>
#include <condition_variable>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/batch_pool.h"

namespace vimgpt::cli::batch_pool {
namespace {

// While a task runs: tells the queue every claim_idle / 3 that it is still ours, on a connection of its own.
class Heartbeat {
 public:
  Heartbeat(const QueueSettings& settings, const std::string& consumer, const fleet::Delivery& delivery)
      : thread_([this, &settings, consumer, delivery] {
          auto beat = fleet::Queue::connect(settings.url);
          std::unique_lock lock(mutex_);
          while (!stop_) {
            if (!beat) beat = fleet::Queue::connect(settings.url);  // Redis was away when the task began
            if (beat) {
              if (auto sent = beat->heartbeat(consumer, delivery); !sent) {
                hide_status_line();
                std::cerr << "vimgpt: heartbeat for task " << delivery.id << ": " << sent.error().message << "\n";
              }
            }
            wake_.wait_for(lock, settings.claim_idle / 3, [this] { return stop_; });
          }
        }) {}
  ~Heartbeat() {
    {
      std::scoped_lock lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

// How long a worker with nothing to take, while others still run tasks, waits on the stream before it asks
// again (a task put back or a silent worker's to claim): short, so the last worker leaves soon after the last
// result.
constexpr std::chrono::milliseconds kQueueWait{250};

// How long a worker rides out a queue it cannot reach (Redis restarting, a failover) before it gives up: its task's
// result waits in memory meanwhile, and the task it holds stays its own.
constexpr std::chrono::seconds kQueueOutage{60};

// A queue call tried again while Redis cannot be reached, each wait longer, for up to kQueueOutage, the wait said once;
// what Redis refuses, and an outage that lasts, come back as they are. There is no event to wait on for a server
// coming back, so the waits are timed.
template <typename Call>
auto through_outage(Batch& batch, Call call) -> decltype(call()) {
  auto result = call();
  const auto deadline = std::chrono::steady_clock::now() + kQueueOutage;
  std::chrono::milliseconds pause{100};
  bool said = false;
  while (!result && result.error().kind == ErrorKind::Network && !stop_requested() &&
         std::chrono::steady_clock::now() < deadline) {
    if (!said) {
      std::scoped_lock lock(batch.mutex);
      batch.say_locked("vimgpt: the queue: " + result.error().message + "; trying again for up to " +
                       std::to_string(kQueueOutage.count()) + " s");
      said = true;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds{2000});
    result = call();
  }
  return result;
}

}  // namespace

void queue_worker(const TaskSettings& settings, Batch& batch, std::vector<std::unique_ptr<Endpoint>>& shared,
                  const Seat& seat, const QueueSettings& queue_settings, int number) {
  const std::string consumer = queue_settings.consumer + "-" + std::to_string(number);
  auto tasks = fleet::Queue::connect(queue_settings.url);
  if (!tasks) {
    std::scoped_lock lock(batch.mutex);
    batch.say_locked("vimgpt: " + tasks.error().message);
    return;
  }
  while (!stop_requested()) {
    // The browser first, then the task: a task is not held while a Grid queues this worker's session.
    std::shared_ptr<wire::Connection> connection;
    Endpoint* endpoint = worker_browser(batch, shared, seat, connection);
    if (endpoint == nullptr) return;
    // Without waiting first: an empty, drained queue ends the worker at once.
    auto taken = through_outage(
        batch, [&] { return tasks->take(consumer, queue_settings.claim_idle, std::chrono::milliseconds(0)); });
    if (taken && !*taken) {
      auto drained = through_outage(batch, [&] { return tasks->drained(); });
      if (drained && *drained) return;
      // Others still run tasks: one of them may die, or put its task back.
      taken = drained
                  ? through_outage(batch, [&] { return tasks->take(consumer, queue_settings.claim_idle, kQueueWait); })
                  : Result<std::optional<fleet::Delivery>>(drained.failure());
    }
    if (!taken) {
      // The tasks this worker holds stay pending: another worker takes them after --claim-idle.
      std::scoped_lock lock(batch.mutex);
      batch.say_locked("vimgpt: the queue: " + taken.error().message);
      return;
    }
    if (!*taken) continue;
    const fleet::Delivery delivery = std::move(**taken);
    std::istringstream line_in(delivery.task.dump());
    auto parsed = parse_tasks(line_in);
    if (!parsed || parsed->size() != 1) {
      const std::string why = parsed ? "not one task" : parsed.error().message;
      (void)tasks->finish(delivery, {{"id", delivery.id}, {"status", "error"}, {"message", "bad task: " + why}});
      continue;
    }
    {
      std::scoped_lock lock(batch.mutex);
      ++batch.running;
      ++batch.total;
      batch.progress_locked();
    }
    bool died = false;
    nlohmann::json line;
    {
      Heartbeat beat(queue_settings, consumer, delivery);
      line = run_task(settings, parsed->front(), endpoint->name, connection, died);
    }
    if (died) replace_or_drop(batch, *endpoint, connection, settings.options->max_restarts);
    line["attempts"] = delivery.delivery;
    line["worker"] = consumer;
    const bool stopped = line["status"] == "interrupted";
    // A task cut short by its browser dying or by Ctrl-C goes back at once, for any worker.
    if ((died && line["status"] != "done") || stopped) {
      auto back = through_outage(batch, [&] { return tasks->put_back(delivery); });
      std::scoped_lock lock(batch.mutex);
      --batch.running;
      --batch.total;
      if (!stopped) ++batch.retried;
      batch.say_locked("task " + delivery.id + " " +
                       (back ? "is back in the queue" : "stays pending (" + back.error().message + ")") +
                       (stopped ? "" : ": browser " + endpoint->name + " is gone"));
      continue;
    }
    auto finished = through_outage(batch, [&] { return tasks->finish(delivery, line); });
    // What is left is the whole queue's (every worker's), asked after each result for the status line.
    auto status = finished ? tasks->status() : Result<fleet::QueueStatus>(finished.failure());
    std::scoped_lock lock(batch.mutex);
    --batch.running;
    if (!finished) {
      batch.say_locked("vimgpt: task " + delivery.id + ": its result could not be written (" +
                       finished.error().message + "); it stays pending for another worker");
      --batch.total;
      continue;
    }
    if (status) batch.queue_left = status->waiting + status->running;
    count_result_locked(batch, line);
  }
}

}  // namespace vimgpt::cli::batch_pool
