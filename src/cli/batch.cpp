// `vimgpt batch`: many tasks, N workers, each task in its own browser context; worker i on --browser URL i mod N (a
// DevTools endpoint shared, a WebDriver session of its own) or on a local browser of its own; results appended as
// JSON Lines as each task ends.
#include "cli/batch.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/batch_pool.h"
#include "common/duration.h"

namespace vimgpt::cli::batch_pool {

namespace {

Result<std::shared_ptr<wire::Connection>> connect_endpoint(const std::string& url,
                                                           const fleet::BrowserOptions& remote) {
  VIMGPT_TRY(auto transport, fleet::connect_browser(url, remote));
  return std::make_shared<wire::Connection>(std::move(transport));
}

// A shared endpoint still alive, `preferred` first (under Batch::mutex).
Endpoint* pick_shared(std::vector<std::unique_ptr<Endpoint>>& shared, std::size_t preferred) {
  for (std::size_t i = 0; i < shared.size(); ++i) {
    auto& candidate = shared[(preferred + i) % shared.size()];
    if (!candidate->dead && candidate->connection && candidate->connection->alive()) return candidate.get();
  }
  return nullptr;
}

}  // namespace

// The browser a worker runs its next task on: its own, opened now when it is not yet (outside the lock: a Grid may
// queue the request for minutes while the other workers run tasks), else a shared endpoint still alive. Null when it
// has none left, and the worker leaves.
Endpoint* worker_browser(Batch& batch, std::vector<std::unique_ptr<Endpoint>>& shared, const Seat& seat,
                         std::shared_ptr<wire::Connection>& connection) {
  if (seat.own == nullptr) {
    std::scoped_lock lock(batch.mutex);
    Endpoint* endpoint = pick_shared(shared, seat.preferred);
    if (endpoint != nullptr) connection = endpoint->connection;
    return endpoint;
  }
  Endpoint& own = *seat.own;
  {
    std::scoped_lock lock(batch.mutex);
    if (own.dead || batch.over_locked()) return nullptr;
    if (own.connection) {
      connection = own.connection;
      return &own;
    }
  }
  auto opened = own.open();
  std::scoped_lock lock(batch.mutex);
  if (!opened) {
    own.dead = true;
    // A wait given up because the run stopped or the batch is over is no news.
    if (opened.error().kind != ErrorKind::Cancelled) {
      batch.say_locked("vimgpt: skipping browser " + own.name + ": " + opened.error().message);
    }
    return nullptr;
  }
  own.connection = std::move(*opened);
  ++batch.browsers_opened;
  connection = own.connection;
  return &own;
}

namespace {

// A worker that leaves closes its own browser at once: the WebDriver slot it frees may be the one another worker's
// request waits for.
void leave(Batch& batch, const Seat& seat) {
  if (seat.own == nullptr) return;
  std::shared_ptr<wire::Connection> connection;
  {
    std::scoped_lock lock(batch.mutex);
    connection.swap(seat.own->connection);
  }
  if (connection) connection->close();
}

// Whether a task's failure leaves its browser usable.
bool browser_answers(wire::Connection& connection) {
  return connection.answers(std::chrono::seconds(5));
}

}  // namespace

nlohmann::json run_task(const TaskSettings& s, const BatchTask& task, const std::string& browser_name,
                        const std::shared_ptr<wire::Connection>& connection, bool& endpoint_died) {
  const auto start = std::chrono::steady_clock::now();
  nlohmann::json line = {{"id", task.id}, {"browser", browser_name}};
  auto finish = [&](std::string_view status, const std::string& message) {
    line["status"] = status;
    line["message"] = message;
    line["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return line;
  };
  auto tab = browser::Tab::open(connection, s.run.tab, s.run.launch.engine);
  if (!tab) {
    endpoint_died = !browser_answers(*connection);
    return finish("error", tab.error().message);
  }
  auto client = vision::Client::create(*s.run.model);
  if (!client) return finish("error", client.error().message);
  auto checker = checker_client(s.run.checker, client->get());
  if (!checker) return finish("error", checker.error().message);
  // Nobody answers {"ask"} or takes a {"handoff"} in a batch without the live view: such a task ends needs_input,
  // its question in the results; with it, the task waits for a person on its tile.
  agent::AgentOptions options = agent_options(*s.options, s.run);
  options.interrupted = &handle_interrupts();
  const auto watch = watch_run(s.live, task.id + ": " + task.objective, **tab, options);
  options.objective = task.objective;
  if (!task.start_url.empty()) options.start_url = task.start_url;
  options.max_steps = task.max_steps.value_or(s.options->max_steps);
  if (!s.record_root.empty()) options.record_dir = record_folder(s.record_root, task.id);
  agent::PlannerSettings shown = s.run.planner;  // what the task's model is told
  if (!task.output_schema.is_null()) {
    auto schema = JsonSchema::read(task.output_schema);  // read once already by parse_tasks
    if (!schema) return finish("error", "output_schema: " + schema.error().message);
    options.answer_schema = std::move(*schema);
    shown.answer_schema = task.output_schema;
  }
  const RunAgent run_agent = [&](const agent::AgentOptions& task_options, std::unique_ptr<agent::Planner> planner) {
    agent::Agent agent(task_options, **tab, std::move(planner));
    return agent.run();
  };
  agent::RunResult result;
  if (!s.cache.dir.empty()) {
    auto cached = run_cached(s.cache, options, **client, shown, run_agent, std::cerr, checker->client);
    result = std::move(cached.result);
    line["cache"] = cached.status;
  } else {
    result = run_agent(options, std::make_unique<agent::ModelPlanner>(**client, shown, checker->client));
  }
  (*tab)->close();  // disposes of the task's browser context
  endpoint_died = result.outcome == agent::Outcome::Done ? !connection->alive() : !browser_answers(*connection);
  line["answer"] = result.answer;
  line["steps"] = result.steps;
  line["prompt_tokens"] = result.usage.prompt_tokens;
  line["cached_tokens"] = result.usage.cached_tokens;
  line["completion_tokens"] = result.usage.completion_tokens;
  line["tokens"] = result.usage.prompt_tokens + result.usage.completion_tokens;
  line["cost_usd"] = result.usage.cost_known ? nlohmann::json(result.usage.cost_usd) : nlohmann::json(nullptr);
  line["record_dir"] = result.record_dir;
  // The budgets the task ran under, beside what it spent (null: none).
  const auto limit = [](auto value) { return value > 0 ? nlohmann::json(value) : nlohmann::json(nullptr); };
  line["max_cost_usd"] = limit(options.max_cost_usd);
  line["max_tokens_total"] = limit(options.max_tokens_total);
  if (!result.question.empty()) line["question"] = result.question;
  if (task.answer) line["match"] = match_answer(*task.answer, result.answer);
  return finish(agent::to_string(result.outcome), result.message);
}

// Counts a task's result line and reports it on stderr (under Batch::mutex).
void count_result_locked(Batch& batch, const nlohmann::json& line) {
  if (line["status"] == "done") {
    ++batch.done;
  } else {
    ++batch.failed;
  }
  if (line.contains("prompt_tokens")) {
    vision::Usage usage;
    usage.prompt_tokens = line["prompt_tokens"];
    usage.completion_tokens = line["completion_tokens"];
    usage.cost_known = !line["cost_usd"].is_null();
    usage.cost_usd = line["cost_usd"].is_null() ? 0.0 : line["cost_usd"].get<double>();
    batch.usage += usage;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1fs", line["seconds"].get<double>());
  std::string text = "task " + line["id"].get<std::string>() + ": " + line["status"].get<std::string>() + " (" +
                     std::to_string(line.value("steps", 0)) + " steps, " + seconds + ")" +
                     (line.contains("match") ? "  match " + line["match"].get<std::string>() : "");
  if (!batch.status.terminal()) {
    // No status line on a log: each result's line carries the counts instead.
    const auto left = batch.left_locked();
    text += "  [" + std::to_string(batch.done) + " done, " + std::to_string(batch.failed) + " failed" +
            (left ? ", " + std::to_string(*left) + " left" : "") + "]";
  }
  batch.say_locked(text);
  batch.progress_locked();
}

// A browser that died: a worker's own is opened again (the run's --max-restarts times), a shared one is left out from
// now on.
void replace_or_drop(Batch& batch, Endpoint& endpoint, const std::shared_ptr<wire::Connection>& dead,
                     int max_restarts) {
  Result<std::shared_ptr<wire::Connection>> fresh = fail(ErrorKind::BrowserExited, "it is not one vimgpt can reopen");
  if (endpoint.open && endpoint.reopened < max_restarts) fresh = endpoint.open();
  dead->close();
  std::scoped_lock lock(batch.mutex);
  if (endpoint.connection != dead) return;  // replaced already
  if (fresh) {
    endpoint.connection = std::move(*fresh);
    ++endpoint.reopened;
    batch.say_locked("browser " + endpoint.name + " died; opened a new one (" + std::to_string(endpoint.reopened) +
                     " of " + std::to_string(max_restarts) + ")");
  } else {
    endpoint.dead = true;
    batch.say_locked("browser " + endpoint.name + " died and is left out: " + fresh.error().message);
  }
}

namespace {

void worker(const TaskSettings& settings, Batch& batch, std::vector<std::unique_ptr<Endpoint>>& shared,
            const Seat& seat) {
  while (!stop_requested()) {
    std::shared_ptr<wire::Connection> connection;
    Endpoint* endpoint = worker_browser(batch, shared, seat, connection);
    if (endpoint == nullptr) return;
    QueuedTask next;
    {
      std::scoped_lock lock(batch.mutex);
      if (batch.queue.empty()) return;
      next = std::move(batch.queue.front());
      batch.queue.pop_front();
      ++batch.running;
      batch.progress_locked();
    }
    bool died = false;
    auto line = run_task(settings, next.task, endpoint->name, connection, died);
    if (died) replace_or_drop(batch, *endpoint, connection, settings.options->max_restarts);
    line["attempts"] = next.attempts + 1;
    std::scoped_lock lock(batch.mutex);
    --batch.running;
    const bool stopped = line["status"] == "interrupted";
    // A task cut short by its browser dying gets one more chance on another endpoint; one cut short by
    // Ctrl-C gets no line at all, so resuming runs it again.
    if (died && line["status"] != "done" && next.attempts == 0 && !stopped) {
      ++next.attempts;
      ++batch.retried;
      batch.queue.push_back(std::move(next));
      batch.say_locked("browser " + endpoint->name + " is gone; task " + line["id"].get<std::string>() +
                       " will run again elsewhere");
      continue;
    }
    if (stopped) continue;
    batch.out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
    count_result_locked(batch, line);
  }
}

// The tasks of a file (this shard's, not yet in --out) in batch.queue, and --out open for their results; nullopt
// to go on, else the exit code.
std::optional<int> read_task_file(const BatchFlags& flags, Batch& batch) {
  std::ifstream tasks_in(flags.tasks_file);
  if (!tasks_in) return usage("cannot read " + flags.tasks_file);
  auto tasks = parse_tasks(tasks_in);
  if (!tasks) return usage(tasks.error().message);
  fleet::Shard shard;
  if (!flags.shard.empty()) {
    auto parsed = fleet::parse_shard(flags.shard, [](const char* name) -> const char* { return std::getenv(name); });
    if (!parsed) return usage(parsed.error().message);
    shard = *parsed;
  }
  const auto finished = finished_ids(flags.out);
  std::size_t in_this_shard = 0;
  for (auto& task : *tasks) {
    if (!fleet::in_shard(shard, task.id)) continue;
    ++in_this_shard;
    if (finished.count(task.id) == 0) batch.queue.push_back({std::move(task), 0});
  }
  if (shard.count > 1) {
    std::cerr << "shard " << shard.index << " of " << shard.count << ": " << in_this_shard << " of " << tasks->size()
              << " tasks\n";
  }
  batch.total = static_cast<int>(batch.queue.size());
  if (!finished.empty()) std::cerr << "resuming: " << finished.size() << " tasks already in " << flags.out << "\n";
  if (batch.queue.empty()) {
    std::cerr << "nothing to do\n";
    return 0;
  }
  // A torn last line (a crash mid-write) must not swallow the first new result.
  bool needs_newline = false;
  if (std::ifstream existing(flags.out, std::ios::binary | std::ios::ate); existing && existing.tellg() > 0) {
    existing.seekg(-1, std::ios::end);
    needs_newline = existing.get() != '\n';
  }
  batch.out.open(flags.out, std::ios::app);
  if (!batch.out) return usage("cannot write " + flags.out);
  if (needs_newline) batch.out << "\n";
  return std::nullopt;
}

// The DevTools endpoints among the --browser URLs, each one browser its workers share, opened now (one that cannot
// be is left out, and said so); a webdriver+ URL gets a null entry here: its sessions are the workers' own.
std::vector<std::unique_ptr<Endpoint>> open_shared_endpoints(const std::vector<std::string>& urls,
                                                             const fleet::BrowserOptions& remote) {
  std::vector<std::unique_ptr<Endpoint>> shared;
  for (const auto& url : urls) {
    if (url.starts_with("webdriver+")) continue;
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->name = url;
    auto connection = connect_endpoint(url, remote);
    if (connection) {
      endpoint->connection = std::move(*connection);
    } else {
      endpoint->dead = true;
      if (connection.error().kind != ErrorKind::Cancelled) {
        std::cerr << "vimgpt: skipping browser " << url << ": " << connection.error().message << "\n";
      }
    }
    shared.push_back(std::move(endpoint));
  }
  return shared;
}

// Worker i takes --browser URL i mod N: a webdriver+ URL or no URL at all (local browsers) gives it a browser of its
// own, never more than one, which it opens when it starts; a DevTools URL gives it that shared endpoint.
std::vector<Seat> seat_workers(int workers, const std::vector<std::string>& urls, const TaskSettings& settings,
                               const fleet::BrowserOptions& remote, Batch& batch,
                               std::vector<std::unique_ptr<Endpoint>>& own) {
  launch::LaunchOptions local = settings.run.launch;
  local.window_width = settings.run.tab.viewport.width;
  local.window_height = settings.run.tab.viewport.height;
  std::vector<Seat> seats(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) {
    Seat& seat = seats[static_cast<std::size_t>(i)];
    const std::string number = std::to_string(i + 1);
    if (urls.empty()) {
      // Tasks still get a fresh context each (Chromium's browser context, Firefox's user context).
      own.push_back(std::make_unique<Endpoint>());
      own.back()->name = "local-" + number;
      own.back()->open = [local]() -> Result<std::shared_ptr<wire::Connection>> {
        VIMGPT_TRY(auto transport, launch::launch_browser(local));
        return std::make_shared<wire::Connection>(std::move(transport));
      };
      seat.own = own.back().get();
      continue;
    }
    const std::size_t which = static_cast<std::size_t>(i) % urls.size();
    const std::string& url = urls[which];
    if (!url.starts_with("webdriver+")) {
      // Its place among the shared endpoints: the DevTools URLs before it.
      seat.preferred = static_cast<std::size_t>(
          std::count_if(urls.begin(), urls.begin() + static_cast<std::ptrdiff_t>(which),
                        [](const std::string& other) { return !other.starts_with("webdriver+"); }));
      continue;
    }
    own.push_back(std::make_unique<Endpoint>());
    Endpoint& endpoint = *own.back();
    endpoint.name = url;
    endpoint.name.append(" #").append(number);
    fleet::BrowserOptions options = remote;
    const std::string others = workers > 1 ? "; the other workers go on" : "";
    options.on_queued = [&batch, name = endpoint.name, others](const std::string& message) {
      std::scoped_lock lock(batch.mutex);
      std::string line = "vimgpt: browser ";
      line.append(name).append(": ").append(message).append(" (Ctrl-C stops").append(others).append(")");
      batch.say_locked(line);
    };
    endpoint.open = [url, options] { return connect_endpoint(url, options); };
    seat.own = &endpoint;
  }
  return seats;
}

}  // namespace

Batch::Batch(bool terminal) : status(std::cerr, terminal) {}

std::optional<std::int64_t> Batch::left_locked() const {
  if (from_file) return total - done - failed;
  return queue_left;
}

void Batch::progress_locked() {
  const BatchCounts counts{done, failed, left_locked(), running, std::chrono::steady_clock::now() - start, usage};
  status.show((from_file ? "[" + std::to_string(done + failed) + "/" + std::to_string(total) + "] " : "") +
              batch_status(counts));
}

// Each task's settings, every flag checked, then the workers (from the file or the queue) until the tasks are done:
// the exit code.
int run_batch(const Options& o, const BatchFlags& flags) {
  const Config config = Config::load();
  if (flags.parallel < 1 || flags.parallel > 64) return usage("--parallel takes 1 to 64");
  std::optional<QueueSettings> from_queue;
  if (!flags.queue.empty()) {
    if (!flags.tasks_file.empty() || !flags.out.empty() || !flags.shard.empty()) {
      return usage(
          "with --queue, tasks come from the queue and results go to it: give no TASKS file, --out "
          "or --shard (vimgpt queue push TASKS.jsonl; vimgpt queue collect --out RESULTS.jsonl)");
    }
    auto url = fleet::parse_queue_url(flags.queue);
    if (!url) return usage(url.error().message);
    if (flags.claim_idle < std::chrono::seconds(3)) {
      return usage("--claim-idle takes 3s or more (a worker speaks every third of it), not " +
                   format_duration(flags.claim_idle));
    }
    char host[256] = "host";
    ::gethostname(host, sizeof host - 1);
    from_queue = QueueSettings{*url, flags.claim_idle, std::string(host) + "-" + std::to_string(::getpid())};
  } else {
    if (flags.tasks_file.empty()) return usage("batch needs a TASKS.jsonl file (or --queue URL)");
    if (flags.out.empty()) return usage("batch needs --out RESULTS.jsonl");
  }
  auto run = run_settings(o, config, ModelUse::Required);
  if (!run) return usage(run.error().message);
  if (flags.no_cache && flags.cache.empty()) return usage("--no-cache goes with --cache DIR");
  auto live_view = start_live_view(o);
  if (!live_view) return report_error(live_view.error());
  const TaskSettings settings{&o,
                              *run,
                              flags.record_dir,
                              {flags.cache, !flags.no_cache, run->tab.viewport.width, run->tab.viewport.height},
                              live_view->get()};

  Batch batch(::isatty(STDERR_FILENO) != 0);
  if (from_queue) {
    // Reached now, so a wrong address is an error before any browser starts.
    auto reached = fleet::Queue::connect(from_queue->url);
    if (!reached) {
      std::cerr << "vimgpt: " << reached.error().message << "\n";
      return 1;
    }
  } else if (auto ended = read_task_file(flags, batch)) {
    return *ended;
  }

  const std::atomic<bool>& interrupted = handle_interrupts();
  const int workers = from_queue ? flags.parallel : std::min(flags.parallel, batch.total);
  batch.from_file = !from_queue;
  auto remote = remote_options(o);
  if (!remote) return usage(remote.error().message);
  // A wait on a remote browser ends when the person stops the run, or when a task file's batch is over (a worker whose
  // session the Grid still queues then has nothing to run on it).
  remote->stop = [&batch] {
    if (stop_requested()) return true;
    std::scoped_lock lock(batch.mutex);
    return batch.over_locked();
  };
  auto shared = open_shared_endpoints(o.browsers, *remote);
  std::vector<std::unique_ptr<Endpoint>> own;
  const std::vector<Seat> seats = seat_workers(workers, o.browsers, settings, *remote, batch, own);
  if (o.browsers.size() > static_cast<std::size_t>(workers)) {
    std::cerr << "vimgpt: " << workers << " worker" << (workers == 1 ? "" : "s") << " for " << o.browsers.size()
              << " --browser URLs: the first " << workers << " are used (worker i takes URL i mod N)\n";
  }
  batch.browsers_opened = static_cast<int>(
      std::count_if(shared.begin(), shared.end(), [](const auto& endpoint) { return !endpoint->dead; }));
  if (own.empty() && batch.browsers_opened == 0) {
    std::cerr << "vimgpt: no browser to run the batch on\n";
    return 1;
  }

  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) {
    threads.emplace_back([&, i] {
      const Seat& seat = seats[static_cast<std::size_t>(i)];
      if (from_queue) {
        queue_worker(settings, batch, shared, seat, *from_queue, i + 1);
      } else {
        worker(settings, batch, shared, seat);
      }
      leave(batch, seat);
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& endpoint : shared) {
    if (endpoint->connection) endpoint->connection->close();
  }
  batch.status.clear();
  if (batch.browsers_opened == 0 && !interrupted) std::cerr << "vimgpt: no browser to run the batch on\n";
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch.start).count();
  const int left = static_cast<int>(batch.queue.size());
  std::fprintf(stderr, "batch: %d done, %d failed, %d retried, %d not run, %.1fs\n", batch.done, batch.failed,
               batch.retried, batch.total - batch.done - batch.failed, seconds);
  if (interrupted) return 130;
  if (from_queue) {
    // Done when the queue is: every task pushed has a result (this worker's or another's).
    auto tasks = fleet::Queue::connect(from_queue->url);
    auto drained = tasks ? tasks->drained() : Result<bool>(tasks.failure());
    return drained && *drained ? 0 : 1;
  }
  return left == 0 && batch.done + batch.failed == batch.total ? 0 : 1;
}

}  // namespace vimgpt::cli::batch_pool

namespace vimgpt::cli {

int batch_command(const Options& options, const BatchFlags& flags) {
  return batch_pool::run_batch(options, flags);
}

}  // namespace vimgpt::cli
