// Every command and flag of vimgpt, declared into one CommandLine (command_line.h).
#include "cli/command_line.h"

#include "cli/version.h"

namespace vimgpt::cli {
namespace {

std::string description() {
  return "vimgpt: a web-browsing agent that sees pages through Vimium-style hints and a vision model.\n"
         "Exit codes: 0 done, 1 error, 2 step, time, cost or token budget exhausted, 3 stuck, 4 needs input (the model "
         "asked a question, or handed the page over, and nobody was there), 5 diverged (a replay met a changed page "
         "and "
         "had no model to heal it), 6 answer "
         "invalid (it did not fit --output-schema after two corrections), 7 unverified (--verify's check failed it "
         "after "
         "two corrections), 130 interrupted, 64 usage.\n"
         "Settings: flags > environment (and ./.env) > vimgpt.toml (this folder or one above it) > "
         "$XDG_CONFIG_HOME/vimgpt/config.toml (~/.config/vimgpt/config.toml) > defaults; a file's keys are the long "
         "flags' names (max-actions = 20). `vimgpt config` shows each setting and where it came from; "
         "docs/configuration.md.";
}

}  // namespace

CommandLine::CommandLine() : app(description()) {
  app.set_version_flag("--version", version_text());
  app.set_version_flag("--version", version_text());
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

  shot = app.add_subcommand("shot", "Screenshot a URL");
  shot->add_option("url", url, "Page to load")->required();
  shot->add_option("-o,--output", output, "Image file (.png, .jpg, .webp)");
  add_browser_flags(*shot, options);

  hints_cmd = app.add_subcommand("hints", "Print the hint map of a URL and save the labelled screenshot");
  hints_cmd->add_option("url", url, "Page to load")->required();
  hints_cmd->add_flag("--json", json, "Print a JSON array, one object per hint");
  hints_cmd->add_option("--png", png, "Save the labelled screenshot here");
  hints_cmd->add_option("--mode", mode, "overlay, image or both-frames");
  add_browser_flags(*hints_cmd, options);

  ask = app.add_subcommand("ask", "Send one saved screenshot to the model and print the action it returns");
  ask->add_option("image", image, "Screenshot file")->required();
  ask->add_option("objective", objective, "What to do")->required();
  add_model_flags(*ask, options);

  report = app.add_subcommand("report", "Rebuild report.html of a recorded run from its steps.jsonl");
  report->add_option("dir", dir, "The --record folder")->required();

  batch = app.add_subcommand(
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

  auto* queue_cmd = app.add_subcommand("queue", "A task queue many `vimgpt batch --queue` workers share (Redis)");
  queue_cmd->require_subcommand(1);
  queue_push = queue_cmd->add_subcommand("push", "Add the tasks of a file whose ids were never pushed");
  queue_push->add_option("tasks", queue_flags.tasks_file, "TASKS.jsonl, as for batch")->required();
  queue_collect = queue_cmd->add_subcommand("collect", "Append each task's first result to a file");
  queue_collect->add_option("--out", queue_flags.out, "RESULTS.jsonl, appended; ids already in it are skipped")
      ->required();
  queue_collect->add_flag("--follow", queue_flags.follow, "Keep collecting until every pushed task has a result");
  queue_status = queue_cmd->add_subcommand("status", "Tasks pushed, waiting, running, done and failed");
  for (auto* command : {queue_push, queue_collect, queue_status}) {
    command->add_option("--queue", queue_flags.queue, "redis://HOST:PORT/NAME")->required();
  }

  mcp = app.add_subcommand("mcp", "Serve the Model Context Protocol: other agents look and act through vimgpt");
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

  replay = app.add_subcommand(
      "replay", "Do a recorded run again with no model; a configured model heals only the steps the page changed");
  replay->add_option("dir", replay_flags.dir, "The --record folder of a finished run")->required();
  replay->add_flag("--no-heal", replay_flags.no_heal,
                   "Never ask the model: stop at the first step that does not match (exit 5)");
  replay->add_option("--record", options.record, "Record the replay into DIR (default runs/<timestamp>/)");
  replay->add_flag("--json", options.json, "JSON Lines events on stdout, for programs");
  replay->add_flag(
      "-q,--quiet", [this](std::int64_t n) { options.verbosity -= static_cast<int>(n); }, "Less output");
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

  export_cmd = app.add_subcommand("export", "Write a recorded run as code another tool runs");
  export_cmd->add_option("dir", export_flags.dir, "The --record folder of a finished run")->required();
  export_cmd->add_option("--to", export_flags.to, "playwright: a Playwright Test script (TypeScript)");
  export_cmd->add_option("-o,--out", export_flags.out, "Write the script here (default: standard output)");

  devices = app.add_subcommand("devices", "List audio input devices (for --mic)");

  models = app.add_subcommand("models", "The model catalogue: what each model accepts, costs and when it ends");
  models->add_option("model", model_name, "One model: its whole entry and the sources it was read from");
  models->add_flag("--json", models_json, "All of it as JSON");

  doctor = app.add_subcommand(
      "doctor", "Check the configured model with one small request: reached, key, image, structured output, reply");
  add_model_flags(*doctor, options);
  config_cmd = app.add_subcommand(
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
  add_session_commands(app, session_flags);
  add_generate_command(app, generate_flags);
  app.require_subcommand(0, 1);
  one_value_per_occurrence(app);
}

void one_value_per_occurrence(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (!option->get_positional() && option->get_items_expected_max() > 1) option->allow_extra_args(false);
  }
  for (CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    one_value_per_occurrence(*command);
  }
}

}  // namespace vimgpt::cli
