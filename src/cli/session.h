// Private to src/cli: `vimgpt session start|stop|list` and the verbs that drive a background session.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace vimgpt::cli {

// A verb's command line, before it becomes the tool's arguments: by the parameter's flag, or by the tool
// argument's name for a positional one.
struct VerbInput {
  std::map<std::string, std::string> text;
  std::map<std::string, std::vector<std::string>> words;
  std::map<std::string, bool> flags;
};

struct SessionFlags {
  std::string name = "default";  // --session NAME
  std::string frame;             // -o: where look's frame goes (default: the session's frame file)
  CLI::App* start = nullptr;
  CLI::App* stop = nullptr;
  CLI::App* list = nullptr;
  std::vector<CLI::App*> verbs;  // in the order of the verb table
  std::unique_ptr<VerbInput> input = std::make_unique<VerbInput>();

  // One of session start|stop|list or a verb was given.
  [[nodiscard]] bool given() const;
};

// Adds `session` and the verbs to the app, their values bound into `flags`.
void add_session_commands(CLI::App& app, SessionFlags& flags);
int session_command(const SessionFlags& flags);

}  // namespace vimgpt::cli
