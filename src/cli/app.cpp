#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/session.h"
#include "cli/version.h"
#include "common/text.h"
#include "voice/voice.h"

namespace vimgpt::cli {
namespace {

// "1406 tok (1152 cached) $0.0021, run 4210 tok $0.0070": this step's model calls, then the run's.
std::string format_usage(const vision::Usage& step, const vision::Usage& run) {
  const auto cost = [](const vision::Usage& usage) {
    char text[32];
    std::snprintf(text, sizeof text, " $%.4f", usage.cost_usd);
    return usage.cost_known ? std::string(text) : std::string();
  };
  std::string text = std::to_string(step.total_tokens()) + " tok";
  if (step.cached_tokens > 0) text += " (" + std::to_string(step.cached_tokens) + " cached)";
  return text + cost(step) + ", run " + std::to_string(run.total_tokens()) + " tok" + cost(run);
}

// The flags given on the command line, the subcommand's included, by long name.
void collect_given_flags(const CLI::App& app, GivenFlags& given) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0) continue;
    for (const auto& name : option->get_lnames()) given.insert(name);
  }
  for (const CLI::App* command : app.get_subcommands()) collect_given_flags(*command, given);
}

}  // namespace

std::string auto_record_dir() {
  const auto now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char name[64];
  std::strftime(name, sizeof name, "runs/%Y%m%d-%H%M%S", &local);
  return name;
}

namespace {

Result<std::string> objective_from_voice(const Options& o, const Config& config) {
  voice::SttOptions stt;
  VIMGPT_TRY(stt.backend, voice::parse_stt_backend(o.stt));
  stt.model = o.stt_model;
  stt.api_key = o.api_key.empty() ? config.get("OPENAI_API_KEY").value_or("") : o.api_key;
  if (const auto base = o.base_url.empty() ? config.get("OPENAI_BASE_URL") : std::optional(o.base_url)) {
    stt.base_url = *base;
  }
  if (!o.voice_file.empty()) return voice::transcribe_file(o.voice_file, stt);
  voice::VoiceOptions listen;
  listen.stt = stt;
  listen.capture.device = o.mic;
  listen.capture.vad.max_listen_seconds = std::chrono::duration<double>(o.max_listen).count();
  std::cerr << "listening… speak your objective\n";
  return voice::listen_and_transcribe(listen, [](const voice::ListenProgress& progress) {
    std::cerr << "\r" << voice::render_level_meter(progress) << std::flush;
  });
}

// --confirm, --confirm-risky: the person answers on standard input (the terminal, or a script feeding it). End of
// input ends the run, so an unattended confirmation never runs actions nobody agreed to.
agent::Confirmation confirm_on_terminal(const agent::StepRecord& step, const nlohmann::json& action,
                                        const std::string& risk) {
  while (true) {
    std::cerr << "step " << step.step << "/" << step.max_steps << " proposes " << action.dump()
              << (risk.empty() ? std::string() : "\n  ask first: " + risk)
              << "\n  run it? [y]es, [n]o, [e]dit, [q]uit: " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) return {agent::Verdict::Quit, {}};
    if (auto confirmation = agent::read_confirmation(line, action)) return *confirmation;
    const std::string answer = ascii_lower(trim(line));
    if (answer == "e" || answer == "edit") {
      std::cerr << "  action JSON (e.g. {\"click\": \"AB\"}): " << std::flush;
      if (!std::getline(std::cin, line)) return {agent::Verdict::Quit, {}};
      auto edited = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (edited.is_object()) return {agent::Verdict::Run, edited};
      std::cerr << "  that is not a JSON object; try again\n";
    }
  }
}

}  // namespace

// {"ask"}: the question on the terminal (or spoken, and the answer heard, in voice mode). Nothing when
// nobody can answer: --no-ask, --json without a terminal, the end of standard input.
agent::AskPerson person_to_ask(const Options& o, const Config& config) {
  const bool terminal = ::isatty(STDIN_FILENO) != 0;
  if (o.no_ask || (o.json && !terminal)) return {};
  if (o.voice && o.voice_file.empty()) {
    return [o, config](const std::string& question) -> std::optional<std::string> {
      hide_status_line();
      std::cerr << "the agent asks: " << question << "\n";
      [[maybe_unused]] auto spoken = voice::speak(question);
      auto heard = objective_from_voice(o, config);
      std::cerr << "\n";
      if (!heard) {
        std::cerr << "vimgpt: " << heard.error().message << "\n";
        return std::nullopt;
      }
      std::cerr << "heard: \"" << *heard << "\"\n";
      return *heard;
    };
  }
  return [](const std::string& question) -> std::optional<std::string> {
    hide_status_line();
    std::string line;
    do {
      std::cerr << "the agent asks: " << question << "\n  your answer: " << std::flush;
      if (!std::getline(std::cin, line)) return std::nullopt;
    } while (trim(line).empty());
    return std::string(trim(line));
  };
}

namespace {

// A spoken objective (--voice, --voice-file), confirmed or corrected on the terminal; the error when none was heard.
std::optional<std::string> objective_from_person(Options& o, const Config& config) {
  if (o.objective.empty() && (o.voice || !o.voice_file.empty())) {
    auto spoken = objective_from_voice(o, config);
    std::cerr << "\n";
    if (!spoken) return spoken.error().message;
    o.objective = *spoken;
    std::cerr << "heard: \"" << o.objective << "\"\n";
    if (!o.yes && ::isatty(STDIN_FILENO)) {
      std::cerr << "Enter to go, or type a correction: " << std::flush;
      std::string correction;
      std::getline(std::cin, correction);
      if (!correction.empty()) o.objective = correction;
    }
  }
  return std::nullopt;
}

}  // namespace

agent::RunResult execute(const Options& o, const agent::AgentOptions& options, browser::Tab& tab,
                         std::unique_ptr<agent::Planner> planner) {
  agent::Agent agent(options, tab, std::move(planner));
  // On a terminal: the step under way and the budgets used, on one line under the steps' lines. Not with -q, and not
  // with --confirm, whose question is asked on that line.
  StatusLine status(std::cerr, o.verbosity >= 0 && !o.confirm && !o.confirm_risky && ::isatty(STDERR_FILENO) != 0);
  const auto start = std::chrono::steady_clock::now();
  const auto show = [&](int step, int max_steps, const vision::Usage& usage) {
    status.show(run_status({step, max_steps, std::chrono::steady_clock::now() - start, options.timeout, usage,
                            options.max_tokens_total, options.max_cost_usd}));
  };
  show(1, options.max_steps, {});
  auto result = agent.run([&](const agent::StepRecord& step) {
    if (o.json) {
      nlohmann::json event{{"event", "step"},
                           {"step", step.step},
                           {"url", step.url},
                           {"action", step.action},
                           {"ok", step.ok},
                           {"result", step.result},
                           {"ms", step.timings.total.count()},
                           {"prompt_tokens", step.usage_so_far.prompt_tokens},
                           {"completion_tokens", step.usage_so_far.completion_tokens},
                           {"usage", vision::to_json(step.usage)},
                           {"usage_so_far", vision::to_json(step.usage_so_far)}};
      if (step.replay.is_object()) event["replay"] = step.replay.value("mark", "");
      std::cout << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
    }
    if (o.verbosity >= 0) {
      char seconds[16];
      std::snprintf(seconds, sizeof seconds, "%.1fs", static_cast<double>(step.timings.total.count()) / 1000.0);
      if (!step.recovered.empty()) status.say("recovered: " + step.recovered);
      const std::string mark = step.replay.is_object() ? step.replay.value("mark", "") : "";
      status.say("step " + std::to_string(step.step) + "/" + std::to_string(step.max_steps) + "  " +
                 step.action.dump() + "  " + (step.ok ? "ok" : "error") + ": " + step.result + "  " + seconds + "  " +
                 (mark.empty() ? "" : mark + ", ") + format_usage(step.usage, step.usage_so_far));
      if (!mark.empty() && mark != "replayed") status.say("  " + mark + ": " + step.replay.value("why", ""));
      // The model's server refused a field by name (left out from now on), or reasoning filled the cap.
      if (const auto refused = step.request.find("refused_fields"); refused != step.request.end()) {
        status.say("  note: the server refused " + refused->dump() + ": left out from now on");
      }
      if (step.request.contains("widened_cap")) {
        status.say("  note: the model reasoned past its cap; asked again with " + step.request["widened_cap"].dump() +
                   " tokens (raise --max-tokens to keep it so)");
      }
    }
    // The next step's line, unless this one ended the run.
    if (step.step < step.max_steps && !step.action.contains("done")) {
      show(step.step + 1, step.max_steps, step.usage_so_far);
    }
    if (o.speak) [[maybe_unused]]
      auto spoken = voice::speak(step.ok ? step.result.substr(0, 60) : "that failed");
  });
  status.clear();
  return result;
}

int finish_run(const Options& o, const agent::RunResult& result, std::string_view cache) {
  const std::string answer = agent::answer_text(result.answer);
  if (o.json) {
    nlohmann::json event{{"event", "end"},
                         {"outcome", agent::to_string(result.outcome)},
                         {"answer", result.answer},
                         {"question", result.question},
                         {"message", result.message},
                         {"steps", result.steps},
                         {"prompt_tokens", result.usage.prompt_tokens},
                         {"completion_tokens", result.usage.completion_tokens},
                         {"usage", vision::to_json(result.usage)},
                         {"record_dir", result.record_dir}};
    if (!cache.empty()) event["cache"] = cache;
    std::cout << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (result.outcome == agent::Outcome::Done) {
    std::cout << answer << "\n";
  }
  if (result.outcome != agent::Outcome::Done || o.verbosity > 0) {
    std::cerr << "vimgpt: " << agent::to_string(result.outcome) << ": " << result.message << "\n";
  }
  if (result.outcome == agent::Outcome::AnswerInvalid && !o.json) std::cerr << "its last answer: " << answer << "\n";
  if (!result.record_dir.empty() && o.verbosity >= 0) {
    std::cerr << "recorded in " << result.record_dir << "/report.html\n";
  }
  if (result.outcome == agent::Outcome::Done && !answer.empty()) {
    if (!o.speak_to.empty()) {
      if (auto written = voice::speak_to_file(answer, o.speak_to); !written) {
        std::cerr << "vimgpt: " << written.error().message << "\n";
      }
    } else if (o.speak) {
      [[maybe_unused]] auto spoken = voice::speak(answer);
    }
  }
  return agent::exit_code(result.outcome);
}

Result<StartedRun> start_run(const Options& o, const RunSettings& settings) {
  handle_interrupts();
  StartedRun started;
  VIMGPT_TRY(started.tab, open_browser_tab(o, settings.launch, settings.tab));
  if (settings.model) {
    VIMGPT_TRY(started.client, vision::Client::create(*settings.model));
  }
  VIMGPT_TRY(started.checker, checker_client(settings.checker, started.client.get()));
  return started;
}

int report_start_error(const Error& error) {
  std::cerr << "vimgpt: " << error.message << "\n";
  return error.kind == ErrorKind::InvalidArgument ? kExitUsage : 1;
}

int run_command(Options o) {
  const Config config = Config::load();
  // Everything is validated before a browser starts.
  std::unique_ptr<agent::ScriptedPlanner> script;
  if (!o.actions_file.empty()) {
    auto loaded = agent::ScriptedPlanner::from_file(o.actions_file);
    if (!loaded) return usage(loaded.error().message);
    script = std::move(*loaded);
  }
  if (script && !o.cache.empty()) return usage("--cache keeps model runs; a --actions script needs none");
  if (o.no_cache && o.cache.empty()) return usage("--no-cache goes with --cache DIR");
  // A build without espeak-ng (the MIT-licensed default) cannot speak: say so now, not after the run.
  if (o.speak || !o.speak_to.empty()) {
    if (auto speech = voice::speech_available(); !speech) return report_error(speech.error());
  }
  auto settings = run_settings(o, config, script ? ModelUse::ScriptInstead : ModelUse::Required);
  if (!settings) return usage(settings.error().message);
  if (auto failed = objective_from_person(o, config)) {
    std::cerr << "vimgpt: " << *failed << "\n";
    return 1;
  }
  if (o.objective.empty() && !script) {
    if (!::isatty(STDIN_FILENO)) return usage("give an objective: vimgpt \"what to do\" (or --voice)");
    std::cerr << "What should the browser do? " << std::flush;
    std::getline(std::cin, o.objective);
    if (o.objective.empty()) return usage("no objective given");
  }

  const std::string record_dir = o.record == "auto" ? auto_record_dir() : o.record;
  if (settings->tab.download_dir.empty() && !record_dir.empty()) settings->tab.download_dir = record_dir + "/downloads";

  auto live_view = start_live_view(o);
  if (!live_view) return report_error(live_view.error());
  auto started = start_run(o, *settings);
  if (!started) return report_start_error(started.error());
  auto& tab = started->tab;
  auto& client = started->client;

  agent::AgentOptions options = agent_options(o, *settings);
  options.record_dir = record_dir;
  options.interrupted = &handle_interrupts();
  if (o.confirm || o.confirm_risky) options.confirm = confirm_on_terminal;
  if (::isatty(STDIN_FILENO)) options.confirm_provider_checks = confirm_on_terminal;
  options.ask = person_to_ask(o, config);
  options.hand_off = person_to_hand_off(o);
  // Destroyed before the tab: the tile is marked ended, and the tab no longer streamed.
  const auto watch = watch_run(live_view->get(), o.objective, *tab, options);
  if (!o.cache.empty()) {
    const CacheSettings cache{o.cache, !o.no_cache, settings->tab.viewport.width, settings->tab.viewport.height};
    const auto cached = run_cached(
        cache, options, *client, settings->planner,
        [&](const agent::AgentOptions& task, std::unique_ptr<agent::Planner> planner) {
          return execute(o, task, *tab, std::move(planner));
        },
        std::cerr, started->checker.client);
    tab->close();
    if (o.verbosity >= 0) std::cerr << "cache: " << cached.status << "\n";
    return finish_run(o, cached.result, cached.status);
  }
  std::unique_ptr<agent::Planner> planner;
  if (script) {
    planner = std::move(script);
  } else {
    planner = std::make_unique<agent::ModelPlanner>(*client, settings->planner, started->checker.client);
  }
  const auto result = execute(o, options, *tab, std::move(planner));
  tab->close();
  return finish_run(o, result, {});
}

int main(int argc, char** argv) {
  CLI::App app{
      "vimgpt: a web-browsing agent that sees pages through Vimium-style hints and a vision model.\n"
      "Exit codes: 0 done, 1 error, 2 step, time, cost or token budget exhausted, 3 stuck, 4 needs input (the model "
      "asked a question, or handed the page over, and nobody was there), 5 diverged (a replay met a changed page and "
      "had no model to heal it), 6 answer "
      "invalid (it did not fit --output-schema after two corrections), 7 unverified (--verify's check failed it after "
      "two corrections), 130 interrupted, 64 usage.\n"
      "Settings: flags > environment (and ./.env) > vimgpt.toml (this folder or one above it) > "
      "$XDG_CONFIG_HOME/vimgpt/config.toml (~/.config/vimgpt/config.toml) > defaults; a file's keys are the long "
      "flags' names (max-actions = 20). `vimgpt config` shows each setting and where it came from; "
      "docs/configuration.md."};
  app.set_version_flag("--version", version_text());
  Options options;
  add_run_flags(app, options);
  add_verify_flags(app, options);
  add_browser_flags(app, options);
  add_model_flags(app, options);
  add_budget_flags(app, options);

  add_live_flag(app, options);
  auto* run = app.add_subcommand(
      "run",
      "Do OBJECTIVE in the browser (the default command). On a terminal one line shows the step, the time, tokens and "
      "cost used of their budgets; on a log, a line per step");
  add_run_flags(*run, options);
  add_verify_flags(*run, options);
  add_live_flag(*run, options);
  add_browser_flags(*run, options);
  add_model_flags(*run, options);
  add_budget_flags(*run, options);

  std::string url;
  std::string output = "page.png";
  auto* shot = app.add_subcommand("shot", "Screenshot a URL");
  shot->add_option("url", url, "Page to load")->required();
  shot->add_option("-o,--output", output, "Image file (.png, .jpg, .webp)");
  add_browser_flags(*shot, options);

  bool json = false;
  std::string png;
  std::string mode = "overlay";
  auto* hints_cmd = app.add_subcommand("hints", "Print the hint map of a URL and save the labelled screenshot");
  hints_cmd->add_option("url", url, "Page to load")->required();
  hints_cmd->add_flag("--json", json, "Print a JSON array, one object per hint");
  hints_cmd->add_option("--png", png, "Save the labelled screenshot here");
  hints_cmd->add_option("--mode", mode, "overlay, image or both-frames");
  add_browser_flags(*hints_cmd, options);

  std::string image;
  std::string objective;
  auto* ask = app.add_subcommand("ask", "Send one saved screenshot to the model and print the action it returns");
  ask->add_option("image", image, "Screenshot file")->required();
  ask->add_option("objective", objective, "What to do")->required();
  add_model_flags(*ask, options);

  std::string dir;
  auto* report = app.add_subcommand("report", "Rebuild report.html of a recorded run from its steps.jsonl");
  report->add_option("dir", dir, "The --record folder")->required();

  BatchFlags batch_flags;
  auto* batch = app.add_subcommand(
      "batch",
      "Run the tasks of a JSON Lines file in parallel, resumably. On a terminal one line shows tasks done, failed and "
      "left, the rate and the time to go; on a log, a line per finished task with the counts");
  batch->add_option("tasks", batch_flags.tasks_file,
                    "TASKS.jsonl: {\"id\", \"objective\", \"start_url\"?, ...} (none with --queue)");
  batch->add_option("--parallel", batch_flags.parallel, "Tasks at once (default 1)");
  batch->add_option("--out", batch_flags.out, "RESULTS.jsonl, appended; ids already in it are skipped");
  batch->add_option("--record-dir", batch_flags.record_dir, "Record each task into DIR/<id>");
  batch->add_option("--cache", batch_flags.cache,
                    "Replay each task from DIR when it was done before; keep finished runs there");
  batch->add_flag("--no-cache", batch_flags.no_cache, "With --cache: do every task afresh, and keep them");
  batch->add_option("--queue", batch_flags.queue,
                    "redis://HOST:PORT/NAME: take tasks from this shared queue and put results in it, until every "
                    "pushed task has one (vimgpt queue push / collect)");
  add_duration_option(*batch, "--claim-idle", batch_flags.claim_idle,
                      "With --queue: take over another worker's task once it has been silent this long (default 60s, "
                      "at least 3s; a live worker speaks every third of it)");
  batch->add_option("--shard", batch_flags.shard,
                    "Only this machine's part of TASKS: K/N (tasks whose id hashes to K mod N), auto (a Slurm array "
                    "task's), auto/N (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX of N)");
  add_browser_flags(*batch, options);
  add_model_flags(*batch, options);
  add_verify_flags(*batch, options);
  add_budget_flags(*batch, options);
  add_live_flag(*batch, options);
  batch->add_flag("--confirm-risky", options.confirm_risky,
                  "An action that leaves the start page's sites, types a secret or gives the page a file waits for a "
                  "person's yes in the live view (--live); with none watching, its task ends needs_input");
  batch->add_option("--start-url", options.start_url, "First page of tasks that name none");
  batch->add_option("--max-steps", options.max_steps, "Step budget of tasks that name none (default 30)");
  batch->add_option("--max-actions", options.max_actions, "The most actions one reply's list may hold (default 5)");
  batch->add_option("--output-schema", options.output_schema,
                    "FILE.json: the JSON Schema answers must fit, for tasks that give no \"output_schema\"");
  add_duration_option(*batch, "--timeout", options.timeout,
                      "Time budget per task: 90s, 5m (a plain number is seconds; default: none)");
  add_duration_option(*batch, "--settle-ms", options.settle,
                      "Longest wait for a page to settle (default 3000: a plain number is milliseconds)");
  batch->add_option("--upload-dir", options.upload_dir, "Files tasks may upload, only from this folder");

  QueueFlags queue_flags;
  auto* queue_cmd = app.add_subcommand("queue", "A task queue many `vimgpt batch --queue` workers share (Redis)");
  queue_cmd->require_subcommand(1);
  auto* queue_push = queue_cmd->add_subcommand("push", "Add the tasks of a file whose ids were never pushed");
  queue_push->add_option("tasks", queue_flags.tasks_file, "TASKS.jsonl, as for batch")->required();
  auto* queue_collect = queue_cmd->add_subcommand("collect", "Append each task's first result to a file");
  queue_collect->add_option("--out", queue_flags.out, "RESULTS.jsonl, appended; ids already in it are skipped")
      ->required();
  queue_collect->add_flag("--follow", queue_flags.follow, "Keep collecting until every pushed task has a result");
  auto* queue_status = queue_cmd->add_subcommand("status", "Tasks pushed, waiting, running, done and failed");
  for (auto* command : {queue_push, queue_collect, queue_status}) {
    command->add_option("--queue", queue_flags.queue, "redis://HOST:PORT/NAME")->required();
  }

  McpFlags mcp_flags;
  auto* mcp = app.add_subcommand("mcp", "Serve the Model Context Protocol: other agents look and act through vimgpt");
  mcp->add_option("--http", mcp_flags.http, "Streamable HTTP on HOST:PORT (default: stdio); /mcp is the endpoint");
  mcp->add_option("--token", mcp_flags.token, "With --http: every request needs Authorization: Bearer TOKEN");
  mcp->add_option(
      "--observe-after", mcp_flags.observe_after,
      "After an acting tool: changed (the page as look shows it when it changed, default), look (always) or never");
  mcp->add_option("--max-labels", mcp_flags.max_labels,
                  "Most labels look's text lists (default 50; the frame shows all, find searches them; 0: all)");
  mcp->add_flag("--shared-browser", mcp_flags.shared_browser,
                "With --http: every session shares one browser, one call at a time (default: each its own)");
  mcp->add_option("--max-sessions", mcp_flags.max_sessions,
                  "With --http: sessions at once, each with its own browser; one more is refused (default: any)");
  add_duration_option(*mcp, "--session-idle", mcp_flags.session_idle,
                      "With --http: end a session (and close its browser) after this long unused (default 30m; 0: "
                      "never; a plain number is seconds)");
  add_duration_option(*mcp, "--exit-idle", mcp_flags.exit_idle,
                      "With --http: stop serving after this long with no request (default 0: never; a plain number is "
                      "seconds)");
  mcp->add_option("--max-tabs", options.max_tabs,
                  "Keep at most N tabs open a session: past it, after an acting tool, the oldest tab not worked in is "
                  "closed (default 8; 0: no limit)");
  add_browser_flags(*mcp, options);
  add_model_flags(*mcp, options);
  add_verify_flags(*mcp, options);
  add_budget_flags(*mcp, options);
  add_live_flag(*mcp, options);
  mcp->add_flag("--confirm-risky", options.confirm_risky,
                "In browse, an action that leaves the start page's sites, types a secret or gives the page a file "
                "waits for a person's yes in the live view (--live); with none watching, browse ends needs_input");
  mcp->add_option("--allow-domain", options.allow_domains, "Only these hosts may load (repeatable)");
  mcp->add_option("--block-domain", options.block_domains, "These hosts never load (repeatable)");
  mcp->add_option("--secret", options.secrets,
                  "NAME=VALUE: the client types <secret:NAME>, never sees the value (NAME@HOST=VALUE: only on HOST)");
  mcp->add_option("--secrets-file", options.secrets_file, "File of NAME=VALUE lines");
  mcp->add_option("--http-credentials", options.http_credentials,
                  "HOST=NAME: answer HOST's HTTP authentication with the secret NAME (user:password)");
  mcp->add_option("--record", options.record,
                  "Record each acting call into DIR/session, each browse into DIR/browse-N");
  mcp->add_option("--upload-dir", options.upload_dir, "Files the upload tool may give a page, only from this folder");
  mcp->add_option("--hint-mode", options.hint_mode, "How labels are drawn: overlay, image, both-frames");
  mcp->add_option("--observe", options.observe,
                  "What browse's model gets: vision, hybrid (plus the hint list) or text");
  mcp->add_option("--max-steps", options.max_steps, "Step budget of browse (default 30)");
  mcp->add_option("--max-actions", options.max_actions, "The most actions one list may hold (default 5)");
  add_duration_option(*mcp, "--settle-ms", options.settle, "Longest wait for a page to settle (default 3000)");

  ReplayFlags replay_flags;
  auto* replay = app.add_subcommand(
      "replay", "Do a recorded run again with no model; a configured model heals only the steps the page changed");
  replay->add_option("dir", replay_flags.dir, "The --record folder of a finished run")->required();
  replay->add_flag("--no-heal", replay_flags.no_heal,
                   "Never ask the model: stop at the first step that does not match (exit 5)");
  replay->add_option("--record", options.record, "Record the replay into DIR (default runs/<timestamp>/)");
  replay->add_flag("--json", options.json, "JSON Lines events on stdout, for programs");
  replay->add_flag(
      "-q,--quiet", [&options](std::int64_t n) { options.verbosity -= static_cast<int>(n); }, "Less output");
  replay->add_option("--secret", options.secrets,
                     "NAME=VALUE: the value typed for <secret:NAME> (never recorded; NAME@HOST=VALUE: only on HOST)");
  replay->add_option("--secrets-file", options.secrets_file, "File of NAME=VALUE lines");
  replay->add_option("--upload-dir", options.upload_dir, "The folder recorded uploads are taken from");
  add_duration_option(*replay, "--settle-ms", options.settle, "Longest wait for a page to settle (default 3000)");
  replay->add_option("--hint-mode", options.hint_mode, "How labels are drawn: overlay, image, both-frames");
  replay->add_option("--observe", options.observe, "What a healing model gets: vision, hybrid or text");
  add_browser_flags(*replay, options);
  add_model_flags(*replay, options);
  add_budget_flags(*replay, options);

  ExportFlags export_flags;
  auto* export_cmd = app.add_subcommand("export", "Write a recorded run as code another tool runs");
  export_cmd->add_option("dir", export_flags.dir, "The --record folder of a finished run")->required();
  export_cmd->add_option("--to", export_flags.to, "playwright: a Playwright Test script (TypeScript)");
  export_cmd->add_option("-o,--out", export_flags.out, "Write the script here (default: standard output)");

  auto* devices = app.add_subcommand("devices", "List audio input devices (for --mic)");

  std::string model_name;
  bool models_json = false;
  auto* models = app.add_subcommand("models", "The model catalogue: what each model accepts, costs and when it ends");
  models->add_option("model", model_name, "One model: its whole entry and the sources it was read from");
  models->add_flag("--json", models_json, "All of it as JSON");

  auto* doctor = app.add_subcommand(
      "doctor", "Check the configured model with one small request: reached, key, image, structured output, reply");
  add_model_flags(*doctor, options);
  auto* config_cmd = app.add_subcommand(
      "config",
      "Show each effective setting, its value and where it came from: a flag, the environment, the project file "
      "(vimgpt.toml), the user file ($XDG_CONFIG_HOME/vimgpt/config.toml) or the default; secrets only as set or not");
  // A run's flags (its --json: one JSON object here), so `vimgpt config --max-steps 5` shows what a run given them
  // would take.
  add_run_flags(*config_cmd, options);
  add_browser_flags(*config_cmd, options);
  add_model_flags(*config_cmd, options);
  add_budget_flags(*config_cmd, options);
  add_live_flag(*config_cmd, options);
  SessionFlags session_flags;
  add_session_commands(app, session_flags);
  GenerateFlags generate_flags;
  add_generate_command(app, generate_flags);
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (session_flags.given()) return session_command(session_flags);
  if (*generate_flags.command) return generate_command(app, generate_flags);
  // The commands that take settings read the config files now: a broken one stops them before anything starts.
  if (!(*report || *devices || *models || *queue_push || *queue_collect || *queue_status || *export_cmd)) {
    GivenFlags given;
    collect_given_flags(app, given);
    auto configured = configure(options, given);
    if (!configured) return usage(configured.error().message);
    if (*config_cmd) return config_command(options, *configured);
    if (options.mode == "auto") options.mode = auto_mode(options, Config::load());
  }
  if (*shot) return shot_command(options, url, output);
  if (*hints_cmd) return hints_command(options, url, json, png, mode);
  if (*ask) return ask_command(options, image, objective);
  if (*report) return report_command(dir);
  if (*devices) return devices_command();
  if (*models) return models_command(model_name, models_json);
  if (*doctor) return doctor_command(options);
  if (*mcp) return mcp_command(options, mcp_flags);
  if (*batch) return batch_command(options, batch_flags);
  if (*queue_push) return queue_push_command(queue_flags);
  if (*queue_collect) return queue_collect_command(queue_flags);
  if (*queue_status) return queue_status_command(queue_flags);
  if (*replay) return replay_command(options, replay_flags);
  if (*export_cmd) return export_command(export_flags);
  return run_command(options);
}

}  // namespace vimgpt::cli
