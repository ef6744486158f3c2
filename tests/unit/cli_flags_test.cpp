// The command line as a person writes it: every command's every repeatable option given right before the command's
// positionals (`vimgpt --secret pin=1234 "Sign in"`, as `curl -H` or `docker run -e`), in both of its forms.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_line.h"

namespace vimgpt::cli {
namespace {

// A command by its path from the top ("" is vimgpt itself, "queue push").
CLI::App* command_at(CLI::App& top, const std::vector<std::string>& path) {
  CLI::App* at = &top;
  for (const auto& name : path) at = at->get_subcommand(name);
  return at;
}

struct Command {
  std::vector<std::string> path;
  std::vector<std::string> positionals;  // their names, in order
  std::vector<std::string> repeatable;   // the long names of the options that may be given more than once
  std::vector<std::string> required;     // options every use of the command gives
};

void walk(CLI::App& app, std::vector<std::string> path, std::vector<Command>& commands) {
  Command command{path, {}, {}, {}};
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional()) {
      command.positionals.push_back(option->get_name());
    } else if (option->get_items_expected_max() > 1) {
      command.repeatable.push_back(option->get_lnames().front());
    } else if (option->get_required()) {
      command.required.push_back(option->get_lnames().front());
    }
  }
  commands.push_back(command);
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    auto below = path;
    below.push_back(sub->get_name());
    walk(*sub, below, commands);
  }
}

// Parses `words` after "vimgpt" into a fresh command line.
std::unique_ptr<CommandLine> parsed(const std::vector<std::string>& words) {
  auto line = std::make_unique<CommandLine>();
  std::vector<const char*> argv = {"vimgpt"};
  for (const auto& word : words) argv.push_back(word.c_str());
  line->app.parse(static_cast<int>(argv.size()), argv.data());
  return line;
}

TEST(CommandLineFlags, ARepeatableOptionTakesOneValueAndThePositionalAfterItIsThePositional) {
  std::vector<Command> commands;
  {
    CommandLine line;
    walk(line.app, {}, commands);
  }
  int checked = 0;
  for (const auto& command : commands) {
    if (command.positionals.empty()) continue;
    for (const auto& option : command.repeatable) {
      for (const bool joined : {false, true}) {
        std::vector<std::string> words = command.path;
        for (const auto& required : command.required) words.insert(words.end(), {"--" + required, "x"});
        if (joined) {
          words.push_back("--" + option + "=pin=1234");
        } else {
          words.insert(words.end(), {"--" + option, "pin=1234"});
        }
        std::vector<std::string> values;
        for (std::size_t i = 0; i < command.positionals.size(); ++i) values.push_back("Sign in " + std::to_string(i));
        words.insert(words.end(), values.begin(), values.end());
        std::string said = "vimgpt";
        for (const auto& word : words) said += " '" + word + "'";
        std::unique_ptr<CommandLine> line;
        try {
          line = parsed(words);
        } catch (const CLI::ParseError& e) {
          ADD_FAILURE() << said << ": " << e.what();
          continue;
        }
        CLI::App* at = command_at(line->app, command.path);
        EXPECT_EQ(at->get_option("--" + option)->results(), std::vector<std::string>{"pin=1234"}) << said;
        for (std::size_t i = 0; i < values.size(); ++i) {
          EXPECT_EQ(at->get_option(command.positionals[i])->results(), std::vector<std::string>{values[i]}) << said;
        }
        ++checked;
      }
    }
  }
  // The run's own --secret, --allow-domain, --browser, ... on vimgpt and run, batch's, mcp's (no positional: not
  // here), replay's: far more than a handful, or the walk found nothing.
  EXPECT_GT(checked, 20);
}

TEST(CommandLineFlags, ARepeatableOptionGivenTwiceKeepsBothValues) {
  const auto line = parsed({"--secret", "a=1", "--secret=b=2", "--allow-domain", "example.com", "Sign in"});
  EXPECT_EQ(line->options.secrets, (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_EQ(line->options.allow_domains, std::vector<std::string>{"example.com"});
  EXPECT_EQ(line->options.objective, "Sign in");
}

}  // namespace
}  // namespace vimgpt::cli
