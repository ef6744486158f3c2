// `vimgpt batch`: many tasks, N workers, each task in its own browser context, spread over remote browser
// endpoints (or one local Chromium per worker), results appended as JSON Lines as each task ends.
#include "cli/batch.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/commands.h"

namespace vimgpt::cli {

namespace {

// One browser the workers share: a remote endpoint (one connection, a context per task) or a local
// Chromium of one worker.
struct Endpoint {
  std::string name;
  std::shared_ptr<cdp::Connection> connection;
  std::atomic<bool> dead{false};
};

struct QueuedTask {
  BatchTask task;
  int attempts = 0;
};

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
  bool tty = false;
  int total = 0;

  void progress_locked() {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[200];
    std::snprintf(line, sizeof line, "[%d/%d] done %d  failed %d  running %d  %.0fs  %lld tok", done + failed, total,
                  done, failed, running, seconds,
                  static_cast<long long>(usage.prompt_tokens) + static_cast<long long>(usage.completion_tokens));
    std::string text = line;
    if (usage.cost_known) {
      std::snprintf(line, sizeof line, "  $%.4f", usage.cost_usd);
      text += line;
    }
    // A terminal gets one line redrawn in place; a log gets nothing here (each result is its own line).
    if (tty) std::cerr << "\r\033[K" << text << std::flush;
  }
};

Result<std::shared_ptr<cdp::Connection>> connect_endpoint(const std::string& url) {
  VIMGPT_TRY(auto transport, cdp::connect_browser(url));
  return std::make_shared<cdp::Connection>(std::move(transport));
}

Endpoint* pick_endpoint(std::vector<std::unique_ptr<Endpoint>>& endpoints, std::size_t preferred) {
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    auto& candidate = endpoints[(preferred + i) % endpoints.size()];
    if (!candidate->dead && candidate->connection->alive()) return candidate.get();
  }
  return nullptr;
}

// Whether a task's failure leaves its browser usable.
bool browser_answers(cdp::Connection& connection) {
  return connection.answers(std::chrono::seconds(5));
}

// The run's settings (every flag checked once) and where task records go.
struct TaskSettings {
  const Options* options;
  RunSettings run;
  std::string record_root;
  CacheSettings cache;  // dir empty: no cache
};

nlohmann::json run_task(const TaskSettings& s, const BatchTask& task, Endpoint& endpoint, bool& endpoint_died) {
  const auto start = std::chrono::steady_clock::now();
  nlohmann::json line = {{"id", task.id}, {"browser", endpoint.name}};
  auto finish = [&](std::string_view status, const std::string& message) {
    line["status"] = status;
    line["message"] = message;
    line["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return line;
  };
  auto tab = browser::Tab::open(endpoint.connection, s.run.tab);
  if (!tab) {
    endpoint_died = !browser_answers(*endpoint.connection);
    return finish("error", tab.error().message);
  }
  auto client = vision::Client::create(*s.run.model);
  if (!client) return finish("error", client.error().message);
  // Nobody answers {"ask"} in a batch: such a task ends needs_input, its question in the results.
  agent::AgentOptions options = agent_options(*s.options, s.run);
  options.interrupted = &handle_interrupts();
  options.objective = task.objective;
  if (!task.start_url.empty()) options.start_url = task.start_url;
  options.max_steps = task.max_steps.value_or(s.options->max_steps);
  if (!s.record_root.empty()) options.record_dir = s.record_root + "/" + folder_name(task.id);
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
    auto cached = run_cached(s.cache, options, **client, shown, run_agent, std::cerr);
    result = std::move(cached.result);
    line["cache"] = cached.status;
  } else {
    result = run_agent(options, std::make_unique<agent::ModelPlanner>(**client, shown));
  }
  (*tab)->close();  // disposes of the task's browser context
  endpoint_died =
      result.outcome == agent::Outcome::Done ? !endpoint.connection->alive() : !browser_answers(*endpoint.connection);
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

void worker(const TaskSettings& settings, Batch& batch, std::vector<std::unique_ptr<Endpoint>>& endpoints,
            std::size_t preferred) {
  while (!handle_interrupts()) {
    Endpoint* endpoint = pick_endpoint(endpoints, preferred);
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
    auto line = run_task(settings, next.task, *endpoint, died);
    if (died) endpoint->dead = true;
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
      if (batch.tty) std::cerr << "\r\033[K";
      std::cerr << "browser " << endpoint->name << " is gone; task " << line["id"].get<std::string>()
                << " will run again elsewhere\n";
      continue;
    }
    if (stopped) continue;
    batch.out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
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
    if (batch.tty) std::cerr << "\r\033[K";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1fs", line["seconds"].get<double>());
    std::cerr << "task " << line["id"].get<std::string>() << ": " << line["status"].get<std::string>() << " ("
              << line.value("steps", 0) << " steps, " << seconds << ")"
              << (line.contains("match") ? "  match " + line["match"].get<std::string>() : "") << "\n";
    batch.progress_locked();
  }
}

}  // namespace

int batch_command(const Options& o, const BatchFlags& flags) {
  const Config config = Config::load();
  auto usage_error = [](const std::string& message) {
    std::cerr << "vimgpt: " << message << "\n";
    return kExitUsage;
  };
  if (flags.parallel < 1 || flags.parallel > 64) return usage_error("--parallel takes 1 to 64");
  if (flags.out.empty()) return usage_error("batch needs --out RESULTS.jsonl");
  std::ifstream tasks_in(flags.tasks_file);
  if (!tasks_in) return usage_error("cannot read " + flags.tasks_file);
  auto tasks = parse_tasks(tasks_in);
  if (!tasks) return usage_error(tasks.error().message);
  auto run = run_settings(o, config, ModelUse::Required);
  if (!run) return usage_error(run.error().message);
  if (flags.no_cache && flags.cache.empty()) return usage_error("--no-cache goes with --cache DIR");
  const TaskSettings settings{
      &o, *run, flags.record_dir, {flags.cache, !flags.no_cache, run->tab.viewport.width, run->tab.viewport.height}};

  Batch batch;
  const auto finished = finished_ids(flags.out);
  for (auto& task : *tasks) {
    if (finished.count(task.id) == 0) batch.queue.push_back({std::move(task), 0});
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
  if (!batch.out) return usage_error("cannot write " + flags.out);
  if (needs_newline) batch.out << "\n";

  const std::atomic<bool>& interrupted = handle_interrupts();
  const int workers = std::min(flags.parallel, batch.total);
  std::vector<std::unique_ptr<Endpoint>> endpoints;
  if (!o.browsers.empty()) {
    for (const auto& url : o.browsers) {
      auto connection = connect_endpoint(url);
      if (!connection) {
        std::cerr << "vimgpt: skipping browser " << url << ": " << connection.error().message << "\n";
        continue;
      }
      auto endpoint = std::make_unique<Endpoint>();
      endpoint->name = url;
      endpoint->connection = std::move(*connection);
      endpoints.push_back(std::move(endpoint));
    }
  } else {
    // One local Chromium per worker; tasks still get a fresh context each, so nothing leaks between them.
    cdp::LaunchOptions local = settings.run.launch;
    local.window_width = settings.run.tab.viewport.width;
    local.window_height = settings.run.tab.viewport.height;
    for (int i = 0; i < workers; ++i) {
      auto transport = cdp::launch_chromium(local);
      if (!transport) {
        std::cerr << "vimgpt: " << transport.error().message << "\n";
        continue;
      }
      auto endpoint = std::make_unique<Endpoint>();
      endpoint->name = "local-" + std::to_string(i + 1);
      endpoint->connection = std::make_shared<cdp::Connection>(std::move(*transport));
      endpoints.push_back(std::move(endpoint));
    }
  }
  if (endpoints.empty()) {
    std::cerr << "vimgpt: no browser to run the batch on\n";
    return 1;
  }

  batch.tty = ::isatty(STDERR_FILENO) != 0;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) {
    threads.emplace_back(worker, std::cref(settings), std::ref(batch), std::ref(endpoints),
                         static_cast<std::size_t>(i) % endpoints.size());
  }
  for (auto& thread : threads) thread.join();
  for (auto& endpoint : endpoints) endpoint->connection->close();

  if (batch.tty) std::cerr << "\r\033[K";
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch.start).count();
  const int left = static_cast<int>(batch.queue.size());
  std::fprintf(stderr, "batch: %d done, %d failed, %d retried, %d not run, %.1fs\n", batch.done, batch.failed,
               batch.retried, batch.total - batch.done - batch.failed, seconds);
  if (interrupted) return 130;
  return left == 0 && batch.done + batch.failed == batch.total ? 0 : 1;
}

}  // namespace vimgpt::cli
