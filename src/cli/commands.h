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

}  // namespace vimgpt::cli
