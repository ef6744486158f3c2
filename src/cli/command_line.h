// The command line as one object: the CLI11 app with every command and flag, and what parsing fills in. Built once
// by main() and by the tests that walk every command's flags.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/session.h"

namespace vimgpt::cli {

struct CommandLine {
  CommandLine();
  CommandLine(const CommandLine&) = delete;  // CLI11 holds references to the members below
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App app;
  Options options;
  // shot and hints
  std::string url;
  std::string output = "page.png";
  bool json = false;
  std::string png;
  std::string mode = "overlay";
  // ask
  std::string image;
  std::string objective;
  std::string dir;  // report
  BatchFlags batch_flags;
  QueueFlags queue_flags;
  McpFlags mcp_flags;
  ReplayFlags replay_flags;
  ExportFlags export_flags;
  std::string model_name;  // models
  bool models_json = false;
  SessionFlags session_flags;
  GenerateFlags generate_flags;

  CLI::App* shot = nullptr;
  CLI::App* hints_cmd = nullptr;
  CLI::App* ask = nullptr;
  CLI::App* report = nullptr;
  CLI::App* batch = nullptr;
  CLI::App* queue_push = nullptr;
  CLI::App* queue_collect = nullptr;
  CLI::App* queue_status = nullptr;
  CLI::App* mcp = nullptr;
  CLI::App* replay = nullptr;
  CLI::App* export_cmd = nullptr;
  CLI::App* devices = nullptr;
  CLI::App* models = nullptr;
  CLI::App* doctor = nullptr;
  CLI::App* config_cmd = nullptr;
};

// Each occurrence of an option that may be given more than once takes exactly one value, so a positional after it is
// the positional (`--secret pin=1234 "Sign in"`, as `curl -H` or `docker run -e`): CLI11's vector options otherwise
// take every word up to the next flag. Applied to `app` and every command below it.
void one_value_per_occurrence(CLI::App& app);

}  // namespace vimgpt::cli
