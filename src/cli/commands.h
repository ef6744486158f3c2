// Private to src/cli: one function per command.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/settings.h"
#include "live/live.h"
#include "mcp/mcp.h"

namespace vimgpt::cli {

// A usage error: the message on stderr; the exit code is kExitUsage.
int usage(const std::string& message);
// An error: the message on stderr; the exit code is kExitUsage for InvalidArgument (a flag or file at fault), else 1.
int report_error(const Error& error);

int run_command(Options options);

// The tab and, when the settings name a model, its client (Ctrl-C handled from here on).
struct StartedRun {
  std::unique_ptr<browser::Tab> tab;
  std::unique_ptr<vision::Client> client;
  CheckerClient checker;  // --verify's
};
Result<StartedRun> start_run(const Options& options, const RunSettings& settings);
// Prints why the run could not start; the exit code (usage for a bad model setting, else 1).
int report_start_error(const Error& error);

// What run and replay share: the agent run with its progress on the terminal (or --json events), and the
// end of it (the answer, the outcome, the exit code).
agent::RunResult execute(const Options& options, const agent::AgentOptions& agent_options, browser::Tab& tab,
                         std::unique_ptr<agent::Planner> planner);
// `cache`: replayed, healed or fresh (--json's end event), empty when no cache or replay was involved.
int finish_run(const Options& options, const agent::RunResult& result, std::string_view cache);
std::string auto_record_dir();  // runs/<timestamp>
// {"ask"}: the question on the terminal (or spoken in voice mode); nothing when nobody can answer.
agent::AskPerson person_to_ask(const Options& options, const Config& config);
// {"handoff"} without the live view: in a headed run on a terminal, the person acts in the browser's window and
// presses Enter; nothing otherwise (the run ends needs_input).
agent::AskPerson person_to_hand_off(const Options& options);
// --live: the live view's server, listening, its address printed (and a --json event); null without the flag.
// InvalidArgument for a bad address, Io when it cannot listen.
Result<std::unique_ptr<live::Server>> start_live_view(const Options& options);
// A tile on `live` (when there is a live view) for a run on `tab`, made its overseer; keep it until the run is over,
// destroyed before the tab.
std::unique_ptr<live::Watch> watch_run(live::Server* live, std::string title, browser::Tab& tab,
                                       agent::AgentOptions& options);

// --cache DIR: the task replayed from its entry (healed by the model where the page changed), else done afresh
// (also when the replay fails); a finished run becomes the entry.
struct CacheSettings {
  std::string dir;
  bool use_cached = true;  // --no-cache: do the task afresh, and still keep it
  int viewport_width = 0;
  int viewport_height = 0;
};
struct CachedRun {
  agent::RunResult result;
  std::string status;  // replayed, healed or fresh
};
using RunAgent = std::function<agent::RunResult(const agent::AgentOptions&, std::unique_ptr<agent::Planner>)>;
// `checker`: --verify's client (null: answers are not checked), for the fresh run and the replay's alike.
CachedRun run_cached(const CacheSettings& cache, agent::AgentOptions options, vision::Client& client,
                     const agent::PlannerSettings& planner, const RunAgent& run_agent, std::ostream& log,
                     vision::Client* checker = nullptr);

struct ReplayFlags {
  std::string dir;
  bool no_heal = false;  // never ask the model, even when one is configured
};
int replay_command(Options options, const ReplayFlags& flags);

struct ExportFlags {
  std::string dir;
  std::string to = "playwright";
  std::string out;  // empty: standard output
};
int export_command(const ExportFlags& flags);
int shot_command(const Options& options, const std::string& url, const std::string& output);
int hints_command(const Options& options, const std::string& url, bool json, const std::string& png,
                  const std::string& mode);
int ask_command(const Options& options, const std::string& image_path, const std::string& objective);
int report_command(const std::string& dir);
// The model catalogue as a table (or one model's entry with its sources, or all of it as JSON).
int models_command(const std::string& model, bool json);
// One checked request to the configured model with a labelled frame: what works, what to change.
int doctor_command(const Options& options);
int devices_command();
// Each effective setting, its value and where it came from (--json: one object).
int config_command(const Options& options, const Configured& configured);

struct BatchFlags {
  std::string tasks_file;
  int parallel = 1;
  std::string out;
  std::string record_dir;
  std::string cache;  // --cache DIR
  bool no_cache = false;
  std::string shard;  // --shard K/N | auto | auto/N; empty: every task
  std::string queue;  // --queue redis://HOST:PORT/NAME: tasks from it, results to it (no tasks file, no --out)
  std::chrono::milliseconds claim_idle{60'000};  // --claim-idle
};

// vimgpt queue push | collect | status.
struct QueueFlags {
  std::string queue;       // redis://HOST:PORT/NAME
  std::string tasks_file;  // push
  std::string out;         // collect
  bool follow = false;     // collect: until every pushed task has a result
};
int queue_push_command(const QueueFlags& flags);
int queue_collect_command(const QueueFlags& flags);
int queue_status_command(const QueueFlags& flags);
int batch_command(const Options& options, const BatchFlags& flags);

struct McpFlags {
  std::string http;                       // HOST:PORT; empty: stdio
  std::string token;                      // bearer token for --http
  std::string observe_after = "changed";  // changed | look | never
  int max_labels = static_cast<int>(mcp::kDefaultMaxLabels);
  bool shared_browser = false;  // --http: every session one browser (today's single-person behaviour)
  int max_sessions = 0;         // --http: sessions at once; 0: any
  std::chrono::milliseconds session_idle{1'800'000};  // --http: a session unused this long ends; 0: never
  std::chrono::milliseconds exit_idle{0};             // --http: stop serving after this long with no request; 0: never
};
int mcp_command(const Options& options, const McpFlags& flags);
// A local Chromium, or with --browser a fresh context on the first remote endpoint.
Result<std::unique_ptr<browser::Tab>> open_browser_tab(const Options& options, const launch::LaunchOptions& launch,
                                                       const browser::TabOptions& tab);

}  // namespace vimgpt::cli
