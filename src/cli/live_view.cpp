// --live and the person beside a run: the live view's server for run, batch and mcp, and a handoff on a terminal.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/progress.h"
#include "common/text.h"

namespace vimgpt::cli {

Result<std::unique_ptr<live::Server>> start_live_view(const Options& o) {
  if (o.live.empty()) return std::unique_ptr<live::Server>();
  VIMGPT_TRY(live::Options options, live::parse_address(o.live));
  // A token of the person's own (a proxy in front, a bookmark), kept off the command line every user can read.
  if (const char* token = std::getenv("VIMGPT_LIVE_TOKEN"); token != nullptr && *token != '\0') {
    options.token = token;
    if (options.token.size() < 16) {
      return fail(ErrorKind::InvalidArgument,
                  "$VIMGPT_LIVE_TOKEN is the live view's only lock: give it 16 "
                  "characters or more (or unset it for a random one)");
    }
  }
  VIMGPT_TRY(auto server, live::Server::start(options));
  if (!live::is_loopback(options.host)) {
    std::cerr << "vimgpt: warning: the live view listens on " << options.host
              << ", not loopback: anyone who can reach it and has its address (the token is in it) can watch and "
                 "take over the browser, and it is plain HTTP; prefer 127.0.0.1 and an SSH tunnel\n";
  }
  std::cerr << "live view: " << server->url() << "\n" << std::flush;
  if (o.json) {
    std::cout << nlohmann::json{{"event", "live"}, {"url", server->url()}}.dump() << "\n" << std::flush;
  }
  return server;
}

std::unique_ptr<live::Watch> watch_run(live::Server* live, std::string title, browser::Tab& tab,
                                       agent::AgentOptions& options) {
  if (live == nullptr) return nullptr;
  auto watch = live->watch(std::move(title), tab, options.interrupted);
  options.overseer = watch.get();
  return watch;
}

agent::AskPerson person_to_hand_off(const Options& o) {
  if (!o.headed || o.no_ask || ::isatty(STDIN_FILENO) == 0) return {};
  return [](const std::string& message) -> std::optional<std::string> {
    hide_status_line();
    std::cerr << "the agent hands you the browser window: " << message
              << "\n  press Enter when you are done (or type a note for the agent first): " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    return std::string(trim(line));
  };
}

}  // namespace vimgpt::cli
