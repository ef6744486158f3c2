// `vimgpt mcp`: the MCP server over stdio (the default) or Streamable HTTP, with the run's browser, safety and
// model flags.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

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

}  // namespace

int mcp_command(const Options& o, const McpFlags& flags) {
  const Config config = Config::load();
  auto settings = run_settings(o, config, ModelUse::ScriptInstead);
  if (!settings) return usage(settings.error().message);
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

  // browse uses vimgpt's own model when one is configured; every other tool works without one.
  auto model = client_options(o, config);
  std::unique_ptr<vision::Client> client;
  std::string no_model = model ? std::string() : model.error().message;
  if (model) {
    print_model_notices(*model);
    auto created = vision::Client::create(*model);
    if (!created) return usage(created.error().message);
    client = std::move(*created);
  }
  // --verify: every browse's answer checked, by the same client or --verify-model's.
  const bool verify = model && (o.verify || !o.verify_model.empty());
  auto made_checker = checker_client(verify ? std::optional(checker_options(o, *model)) : std::nullopt, client.get());
  if (!made_checker) return usage(made_checker.error().message);
  vision::Client* checker = made_checker->client;

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
  options.make_planner = [&](const nlohmann::json& answer_schema) -> Result<std::unique_ptr<agent::Planner>> {
    if (!client) return fail(ErrorKind::InvalidArgument, no_model);
    agent::PlannerSettings planner = settings->planner;
    planner.answer_schema = answer_schema;
    return std::unique_ptr<agent::Planner>(std::make_unique<agent::ModelPlanner>(*client, planner, checker));
  };
  options.agent = agent_options(o, *settings);
  options.agent.record_dir = o.record;
  options.observe_after = flags.observe_after == "never"  ? mcp::ObserveAfter::Never
                          : flags.observe_after == "look" ? mcp::ObserveAfter::Look
                                                          : mcp::ObserveAfter::Changed;
  options.max_labels = static_cast<std::size_t>(flags.max_labels);
  // One server, one browser: stdio's single session, or every HTTP session with --shared-browser.
  auto shared_server = [&] {
    mcp::ServerOptions one = options;
    one.open_tab = [&o, &settings] { return open_browser_tab(o, settings->launch, settings->tab); };
    return std::make_unique<mcp::Server>(std::move(one));
  };
  // Each HTTP session its own browser (a Chromium, or a context of its own on --browser), and its own record and
  // download folders: DIR/client-N.
  const mcp::MakeServer session_server = [&](int number) {
    const std::string folder = "client-" + std::to_string(number);
    mcp::ServerOptions own = options;
    own.watch = watch_as("MCP session " + std::to_string(number));
    if (!own.agent.record_dir.empty()) own.agent.record_dir += "/" + folder;
    browser::TabOptions tab = settings->tab;
    if (!tab.download_dir.empty()) tab.download_dir += "/" + folder;
    own.open_tab = [&o, &settings, tab] { return open_browser_tab(o, settings->launch, tab); };
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
