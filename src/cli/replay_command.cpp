// `vimgpt replay DIR`, `vimgpt export DIR --to playwright`, and the run cache of `run --cache` and
// `batch --cache`.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "replay/replay.h"

namespace vimgpt::cli {
namespace {

namespace fs = std::filesystem;

std::string replay_status(const replay::ReplayPlanner::Tally& tally) {
  return tally.healed > 0 ? "healed" : "replayed";
}

// Where a cached task records: the user's --record folder, or a fresh folder inside the cache.
Result<std::string> record_into(const std::string& cache_dir, const std::string& user_record) {
  if (!user_record.empty()) return user_record;
  return replay::staging_dir(cache_dir);
}

// Makes a finished run the task's cache entry; the run's record folder is then the entry when it was a staging one.
void keep_in_cache(const std::string& cache_dir, const std::string& key, agent::RunResult& result, bool staged,
                   std::ostream& log) {
  if (auto stored = replay::store(cache_dir, key, result.record_dir); !stored) {
    log << "vimgpt: the run is not cached: " << stored.error().message << "\n";
    return;
  }
  if (staged) result.record_dir = (fs::path(cache_dir) / key).string();
}

// A staged run that did not finish is kept, as the task's last failure, for a person to look at.
void keep_failure(const std::string& cache_dir, const std::string& key, agent::RunResult& result) {
  const fs::path failed = fs::path(cache_dir) / (".failed-" + key);
  std::error_code error;
  fs::remove_all(failed, error);
  fs::rename(result.record_dir, failed, error);
  if (!error) result.record_dir = failed.string();
}

}  // namespace

CachedRun run_cached(const CacheSettings& cache, agent::AgentOptions options, vision::Client& client,
                     const agent::PlannerSettings& planner, const RunAgent& run_agent, std::ostream& log,
                     vision::Client* checker) {
  const std::string key =
      replay::cache_key(options.objective, options.start_url, cache.viewport_width, cache.viewport_height);
  const std::string user_record = options.record_dir;
  const auto failed_to_record = [](const Error& error) {
    CachedRun failed;
    failed.result.message = error.message;
    failed.status = "fresh";
    return failed;
  };

  if (auto recording = cache.use_cached ? replay::cached_run(cache.dir, key) : std::nullopt) {
    auto dir = record_into(cache.dir, user_record);
    if (!dir) return failed_to_record(dir.error());
    agent::AgentOptions replaying = options;
    replaying.record_dir = *dir;
    replaying.max_steps = static_cast<int>(recording->steps.size()) + 1;  // past the last: diverged, not out of steps
    auto replayer = std::make_unique<replay::ReplayPlanner>(
        std::move(*recording), std::make_unique<agent::ModelPlanner>(client, planner, checker));
    const auto tally = replayer->tally();  // the agent owns the planner, and is gone when run_agent returns
    CachedRun run{run_agent(replaying, std::move(replayer)), ""};
    run.status = replay_status(*tally);
    if (run.result.outcome == agent::Outcome::Done) {
      keep_in_cache(cache.dir, key, run.result, user_record.empty(), log);
      return run;
    }
    // Ctrl-C, or a budget spent while healing, ends the task; anything else gets a fresh run.
    if (run.result.outcome == agent::Outcome::Interrupted || run.result.outcome == agent::Outcome::BudgetExhausted) {
      if (user_record.empty()) keep_failure(cache.dir, key, run.result);
      return run;
    }
    log << "vimgpt: the cached run could not be replayed (" << run.result.message << "); doing the task afresh\n";
    std::error_code error;
    if (user_record.empty()) {
      fs::remove_all(*dir, error);
    } else {
      fs::remove_all(user_record + ".replay", error);
      fs::rename(user_record, user_record + ".replay", error);
    }
  }
  auto dir = record_into(cache.dir, user_record);
  if (!dir) return failed_to_record(dir.error());
  options.record_dir = *dir;
  CachedRun run{run_agent(options, std::make_unique<agent::ModelPlanner>(client, planner, checker)), "fresh"};
  if (run.result.outcome == agent::Outcome::Done) {
    keep_in_cache(cache.dir, key, run.result, user_record.empty(), log);
  } else if (user_record.empty()) {
    keep_failure(cache.dir, key, run.result);
  }
  return run;
}

int replay_command(Options o, const ReplayFlags& flags) {
  const Config config = Config::load();
  auto recording = replay::load(flags.dir);
  if (!recording) {
    std::cerr << "vimgpt: " << recording.error().message << "\n";
    return 1;
  }
  // The recorded task, in the recorded viewport: the same page layout, so the same elements in view.
  o.objective = recording->objective;
  o.start_url = recording->start_url;
  o.viewport = std::to_string(recording->viewport_width) + "x" + std::to_string(recording->viewport_height);
  o.max_steps = static_cast<int>(recording->steps.size()) + 1;  // past the last: diverged, not out of steps
  auto settings = run_settings(o, config, flags.no_heal ? ModelUse::ScriptInstead : ModelUse::IfConfigured);
  if (!settings) {
    std::cerr << "vimgpt: " << settings.error().message << "\n";
    return kExitUsage;
  }
  if (!recording->output_schema.is_null() && !settings->answer_schema) {  // the answer is held to the run's schema
    auto schema = answer_schema(recording->output_schema, flags.dir + "/run.json's output_schema");
    if (!schema) {
      std::cerr << "vimgpt: " << schema.error().message << "\n";
      return 1;
    }
    settings->answer_schema = std::move(*schema);
    settings->planner.answer_schema = recording->output_schema;
  }
  const std::string record_dir = o.record.empty() || o.record == "auto" ? auto_record_dir() : o.record;
  if (settings->tab.download_dir.empty()) settings->tab.download_dir = record_dir + "/downloads";

  auto started = start_run(o, *settings);
  if (!started) return report_start_error(started.error());
  auto& tab = started->tab;
  auto& client = started->client;
  std::unique_ptr<agent::Planner> healer;
  if (client) healer = std::make_unique<agent::ModelPlanner>(*client, settings->planner);
  agent::AgentOptions options = agent_options(o, *settings);
  options.record_dir = record_dir;
  options.interrupted = &handle_interrupts();
  options.ask = person_to_ask(o, config);
  auto replayer = std::make_unique<replay::ReplayPlanner>(std::move(*recording), std::move(healer));
  const auto tally = replayer->tally();  // the agent owns the planner, and is gone when execute returns
  const auto result = execute(o, options, *tab, std::move(replayer));
  tab->close();
  if (o.verbosity >= 0) {
    std::cerr << "replay: " << tally->replayed << " steps replayed, " << tally->healed << " healed ("
              << result.usage.requests << " model calls)\n";
  }
  return finish_run(o, result, result.outcome == agent::Outcome::Done ? replay_status(*tally) : "");
}

int export_command(const ExportFlags& flags) {
  if (flags.to != "playwright") {
    std::cerr << "vimgpt: export --to takes playwright, not '" << flags.to << "'\n";
    return kExitUsage;
  }
  auto recording = replay::load(flags.dir);
  if (!recording) {
    std::cerr << "vimgpt: " << recording.error().message << "\n";
    return 1;
  }
  auto script = replay::to_playwright(*recording);
  if (!script) {
    std::cerr << "vimgpt: " << script.error().message << "\n";
    return 1;
  }
  if (flags.out.empty()) {
    std::cout << *script;
    return 0;
  }
  std::ofstream out(flags.out, std::ios::binary);
  out << *script;
  if (!out) {
    std::cerr << "vimgpt: cannot write " << flags.out << "\n";
    return 1;
  }
  std::cerr << "wrote " << flags.out << " (run it with: npx playwright test " << flags.out << ")\n";
  return 0;
}

}  // namespace vimgpt::cli
