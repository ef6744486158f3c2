// Private to src/cli: one function per command.
#pragma once

#include <string>

#include "cli/cli.h"
#include "cli/options.h"

namespace vimgpt::cli {

int run_command(Options options);
int shot_command(const Options& options, const std::string& url, const std::string& output);
int hints_command(const Options& options, const std::string& url, bool json, const std::string& png,
                  const std::string& mode);
int ask_command(const Options& options, const std::string& image_path, const std::string& objective);
int report_command(const std::string& dir);
int devices_command();

struct BatchFlags {
  std::string tasks_file;
  int parallel = 1;
  std::string out;
  std::string record_dir;
};
int batch_command(const Options& options, const BatchFlags& flags);

struct McpFlags {
  std::string http;                    // HOST:PORT; empty: stdio
  std::string token;                   // bearer token for --http
  std::string observe_after = "look";  // look | never
};
int mcp_command(const Options& options, const McpFlags& flags);
// A local Chromium, or with --browser a fresh context on the first remote endpoint.
Result<std::unique_ptr<browser::Tab>> open_browser_tab(const Options& options, const cdp::LaunchOptions& launch,
                                                       const browser::TabOptions& tab);

}  // namespace vimgpt::cli
