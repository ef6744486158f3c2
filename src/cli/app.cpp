#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "cli/command_line.h"
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
  const auto line = std::make_unique<CommandLine>();
  CommandLine& cl = *line;
  try {
    cl.app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cl.app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cl.app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cl.app.exit(e);
  } catch (const CLI::ParseError& e) {
    cl.app.exit(e);
    return kExitUsage;
  }
  if (cl.session_flags.given()) return session_command(cl.session_flags);
  if (*cl.generate_flags.command) return generate_command(cl.app, cl.generate_flags);
  // The commands that take settings read the config files now: a broken one stops them before anything starts.
  if (!(*cl.report || *cl.devices || *cl.models || *cl.queue_push || *cl.queue_collect || *cl.queue_status ||
        *cl.export_cmd)) {
    GivenFlags given;
    collect_given_flags(cl.app, given);
    auto configured = configure(cl.options, given);
    if (!configured) return usage(configured.error().message);
    if (*cl.config_cmd) return config_command(cl.options, *configured);
    if (cl.options.mode == "auto") cl.options.mode = auto_mode(cl.options, Config::load());
  }
  if (*cl.shot) return shot_command(cl.options, cl.url, cl.output);
  if (*cl.hints_cmd) return hints_command(cl.options, cl.url, cl.json, cl.png, cl.mode);
  if (*cl.ask) return ask_command(cl.options, cl.image, cl.objective);
  if (*cl.report) return report_command(cl.dir);
  if (*cl.devices) return devices_command();
  if (*cl.models) return models_command(cl.model_name, cl.models_json);
  if (*cl.doctor) return doctor_command(cl.options);
  if (*cl.mcp) return mcp_command(cl.options, cl.mcp_flags);
  if (*cl.batch) return batch_command(cl.options, cl.batch_flags);
  if (*cl.queue_push) return queue_push_command(cl.queue_flags);
  if (*cl.queue_collect) return queue_collect_command(cl.queue_flags);
  if (*cl.queue_status) return queue_status_command(cl.queue_flags);
  if (*cl.replay) return replay_command(cl.options, cl.replay_flags);
  if (*cl.export_cmd) return export_command(cl.export_flags);
  return run_command(cl.options);
}

}  // namespace vimgpt::cli
