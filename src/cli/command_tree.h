// The command line as data, read from the CLI11 app itself, and what is written from it: shell completions and
// the man page. Both are generated at build time by running `vimgpt completions bash|zsh|fish|man`, so they
// cannot drift from the flags the binary takes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace CLI {
class App;
}

namespace vimgpt::cli {

struct Flag {
  std::vector<std::string> names;  // "-o", "--output"
  std::string help;
  bool takes_value = false;
};

struct Command {
  std::string path;  // "" for vimgpt itself, "shot", "queue push"
  std::string help;
  std::vector<std::string> arguments;  // positional names in order: "url", "objective"
  std::vector<Flag> flags;
  std::vector<std::string> subcommands;  // names, in the order they were added
};

// Every visible command, the top first, parents before children. Hidden commands and options (an empty group)
// are left out.
std::vector<Command> command_tree(const CLI::App& app);

enum class Shell { Bash, Zsh, Fish };
Result<Shell> parse_shell(std::string_view name);

std::string completion_script(const std::vector<Command>& commands, Shell shell);

// A troff man page (section 1). `description` is the app's own (its first line is the summary, its "Exit codes:"
// part the EXIT STATUS section); `version` goes in the header.
std::string man_page(const std::vector<Command>& commands, std::string_view description, std::string_view version);

// The hidden `completions` command: add it, then run it when it was given.
struct GenerateFlags {
  CLI::App* command = nullptr;
  std::string what;  // bash, zsh, fish or man
};
void add_generate_command(CLI::App& app, GenerateFlags& flags);
int generate_command(const CLI::App& app, const GenerateFlags& flags);

}  // namespace vimgpt::cli
