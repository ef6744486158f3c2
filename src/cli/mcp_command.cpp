// `vimgpt mcp`: the MCP server over stdio (the default) or Streamable HTTP, with the run's browser, safety and
// model flags.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "cli/commands.h"
#include "common/text.h"
#include "mcp/mcp.h"

namespace vimgpt::cli {
namespace {

// `vimgpt session start` waits on a pipe ($VIMGPT_READY_FD) for the port this server listens on.
void tell_starter(int port) {
  const char* fd_text = std::getenv("VIMGPT_READY_FD");
  if (fd_text == nullptr) return;
  const int fd = std::atoi(fd_text);
  const std::string line = std::to_string(port) + "\n";
  [[maybe_unused]] const auto written = ::write(fd, line.data(), line.size());
  ::close(fd);
  ::unsetenv("VIMGPT_READY_FD");
}

// One way `browse` can run: the settings and model client the flags make in one --mode. A usage error when the flags
// cannot make them; `no_model` when none is configured (every other tool works without one).
struct BrowseMode {
  std::optional<RunSettings> settings;
  std::optional<vision::ClientOptions> model;
  std::unique_ptr<vision::Client> client;
  CheckerClient checker;
  std::string no_model;
};

Result<BrowseMode> browse_mode(Options o, const Config& config, const std::string& mode) {
  o.mode = mode;
  BrowseMode made;
  VIMGPT_TRY(made.settings, run_settings(o, config, ModelUse::ScriptInstead));
  auto model = client_options(o, config);
  if (!model) {
    made.no_model = model.error().message;
    return made;
  }
  VIMGPT_TRY(made.client, vision::Client::create(*model));
  // --verify: every browse's answer checked, by the same client or --verify-model's.
  const bool verify = o.verify || !o.verify_model.empty();
  VIMGPT_TRY(made.checker,
             checker_client(verify ? std::optional(checker_options(o, *model)) : std::nullopt, made.client.get()));
  made.model = std::move(*model);
  return made;
}

}  // namespace

int mcp_command(const Options& o, const McpFlags& flags) {
  const Config config = Config::load();
  // browse runs in the server's --mode, or in the other one a call asks for: both made from the same flags, the
  // other's refusal (a model with no computer tool) told to the call that asks for it.
  auto server_mode = browse_mode(o, config, o.mode);
  if (!server_mode) return usage(server_mode.error().message);
  const RunSettings& settings = *server_mode->settings;
  if (flags.observe_after != "changed" && flags.observe_after != "look" && flags.observe_after != "never") {
    return usage("--observe-after takes changed, look or never, not '" + flags.observe_after + "'");
  }
  std::string host = "127.0.0.1";
  int port = 0;
  if (!flags.http.empty()) {
    // PORT, HOST:PORT or [IPV6]:PORT.
    const std::string_view given = flags.http;
    const auto colon = given.rfind(':');
    std::string_view named = colon == std::string_view::npos ? std::string_view() : given.substr(0, colon);
    if (named.starts_with('[')) named.remove_prefix(1);
    if (named.ends_with(']')) named.remove_suffix(1);
    const auto number = parse_digits(colon == std::string_view::npos ? given : given.substr(colon + 1), 5);
    const bool host_ok = colon == std::string_view::npos ||
                         (!named.empty() && std::all_of(named.begin(), named.end(), [](unsigned char c) {
                           return std::isalnum(c) != 0 || c == '.' || c == ':';
                         }));
    if (!number || *number > 65535 || !host_ok) {
      return usage("--http takes HOST:PORT or PORT, e.g. 127.0.0.1:8931, not '" + flags.http + "'");
    }
    if (colon != std::string_view::npos) host = named;
    port = *number;
  }
  std::string token = flags.token;
  if (const char* from_environment = std::getenv("VIMGPT_MCP_TOKEN"); token.empty() && from_environment != nullptr) {
    token = from_environment;  // kept off the command line, which every user of the machine can read
  }
  if (!flags.token.empty() && flags.http.empty()) return usage("--token is for --http (stdio needs none)");

  if (flags.max_sessions < 0) return usage("--max-sessions takes 0 (no limit) or more");
  if (flags.max_labels < 0) return usage("--max-labels takes 0 (no cap) or more");
  if (flags.http.empty() && (flags.shared_browser || flags.max_sessions > 0 || flags.exit_idle.count() > 0)) {
    return usage("--shared-browser, --max-sessions and --exit-idle are for --http (stdio is one session)");
  }

  if (server_mode->model) print_model_notices(*server_mode->model);
  // The other mode is made on the first browse that asks for it (sessions run on threads of their own).
  std::once_flag other_made;
  std::optional<Result<BrowseMode>> other_mode;

  auto live_view = start_live_view(o);
  if (!live_view) return report_error(live_view.error());
  mcp::ServerOptions options;
  options.version = VIMGPT_VERSION;
  const auto watch_as = [&live_view](const std::string& title) -> decltype(mcp::ServerOptions::watch) {
    if (!*live_view) return {};
    return [&live_view, title](browser::Tab& tab, const std::atomic<bool>* cancelled) {
      return std::unique_ptr<agent::Overseer>((*live_view)->watch(title, tab, cancelled));
    };
  };
  options.watch = watch_as("MCP session");
  options.make_browse = [&](const nlohmann::json& answer_schema, const std::string& asked) -> Result<mcp::BrowseSetup> {
    const std::string mode = asked == "auto" ? auto_mode(o, config) : asked;
    const bool asks_other = !mode.empty() && mode != o.mode;
    if (asks_other) std::call_once(other_made, [&] { other_mode = browse_mode(o, config, mode); });
    if (asks_other && !*other_mode) {
      return fail(ErrorKind::InvalidArgument, "mode " + mode + ": " + other_mode->error().message);
    }
    const BrowseMode& made = asks_other ? **other_mode : *server_mode;
    if (!made.client) return fail(ErrorKind::InvalidArgument, made.no_model);
    agent::PlannerSettings planner = made.settings->planner;
    planner.answer_schema = answer_schema;
    return mcp::BrowseSetup{std::make_unique<agent::ModelPlanner>(*made.client, planner, made.checker.client),
                            made.settings->capture};
  };
  options.agent = agent_options(o, settings);
  // The tools an agent drives itself show it the labels, whatever mode browse's model acts in.
  Options labelled = o;
  labelled.mode = "labels";
  if (auto capture = capture_options(labelled)) options.agent.capture = *capture;
  options.agent.record_dir = o.record;
  options.observe_after = flags.observe_after == "never"  ? mcp::ObserveAfter::Never
                          : flags.observe_after == "look" ? mcp::ObserveAfter::Look
                                                          : mcp::ObserveAfter::Changed;
  options.max_labels = static_cast<std::size_t>(flags.max_labels);
  // One server, one browser: stdio's single session, or every HTTP session with --shared-browser.
  auto shared_server = [&] {
    mcp::ServerOptions one = options;
    one.open_tab = [&o, &settings] { return open_browser_tab(o, settings.launch, settings.tab); };
    return std::make_unique<mcp::Server>(std::move(one));
  };
  // Each HTTP session its own browser (a Chromium, or a context of its own on --browser), and its own record and
  // download folders: DIR/client-N.
  const mcp::MakeServer session_server = [&](int number) {
    const std::string folder = "client-" + std::to_string(number);
    mcp::ServerOptions own = options;
    own.watch = watch_as("MCP session " + std::to_string(number));
    if (!own.agent.record_dir.empty()) own.agent.record_dir += "/" + folder;
    browser::TabOptions tab = settings.tab;
    if (!tab.download_dir.empty()) tab.download_dir += "/" + folder;
    own.open_tab = [&o, &settings, tab] { return open_browser_tab(o, settings.launch, tab); };
    return std::make_unique<mcp::Server>(std::move(own));
  };

  if (flags.http.empty()) return mcp::serve_stdio(*shared_server(), STDIN_FILENO, std::cout, &handle_interrupts());
  if (!live::is_loopback(host)) {
    std::cerr << "vimgpt: warning: serving MCP on " << host
              << ", not loopback: anyone who can reach it drives this browser"
              << (token.empty() ? " (and no --token is set)" : "") << "\n";
  }
  mcp::HttpOptions http;
  http.host = host;
  http.port = port;
  http.token = token;
  http.stop = &handle_interrupts();
  http.max_sessions = flags.max_sessions;
  http.session_idle = flags.session_idle;
  http.exit_idle = flags.exit_idle;
  http.ready = [&](int bound) {
    std::cerr << "vimgpt: MCP on http://" << (host.find(':') != std::string::npos ? "[" + host + "]" : host) << ":"
              << bound << "/mcp\n"
              << std::flush;
    tell_starter(bound);
  };
  std::unique_ptr<mcp::Server> one_server = flags.shared_browser ? shared_server() : nullptr;
  auto served = one_server ? mcp::serve_http(*one_server, http) : mcp::serve_http(session_server, http);
  if (!served) {
    std::cerr << "vimgpt: " << served.error().message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace vimgpt::cli
