// `vimgpt mcp`: the MCP server over stdio (the default) or Streamable HTTP, with the run's browser, safety and
// model flags.
#include <unistd.h>

#include <iostream>
#include <regex>

#include "cli/commands.h"
#include "mcp/mcp.h"

namespace vimgpt::cli {
namespace {

bool loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

int mcp_command(const Options& o, const McpFlags& flags) {
  const Config config = Config::load();
  auto settings = run_settings(o, config, ModelUse::ScriptInstead);
  if (!settings) return usage(settings.error().message);
  if (flags.observe_after != "look" && flags.observe_after != "never") {
    return usage("--observe-after takes look or never, not '" + flags.observe_after + "'");
  }
  std::string host = "127.0.0.1";
  int port = 0;
  if (!flags.http.empty()) {
    static const std::regex address(R"(^(?:\[?([0-9A-Za-z.:]+?)\]?:)?(\d{1,5})$)");
    std::smatch match;
    if (!std::regex_match(flags.http, match, address) || std::stoi(match[2]) > 65535) {
      return usage("--http takes HOST:PORT or PORT, e.g. 127.0.0.1:8931, not '" + flags.http + "'");
    }
    if (match[1].matched) host = match[1];
    port = std::stoi(match[2]);
  }
  if (!flags.token.empty() && flags.http.empty()) return usage("--token is for --http (stdio needs none)");

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

  mcp::ServerOptions options;
  options.version = VIMGPT_VERSION;
  options.open_tab = [&o, &settings] { return open_browser_tab(o, settings->launch, settings->tab); };
  options.make_planner = [&](const nlohmann::json& answer_schema) -> Result<std::unique_ptr<agent::Planner>> {
    if (!client) return fail(ErrorKind::InvalidArgument, no_model);
    agent::PlannerSettings planner = settings->planner;
    planner.answer_schema = answer_schema;
    return std::unique_ptr<agent::Planner>(std::make_unique<agent::ModelPlanner>(*client, planner));
  };
  options.agent = agent_options(o, *settings);
  options.agent.record_dir = o.record;
  options.observe_after = flags.observe_after == "never" ? mcp::ObserveAfter::Never : mcp::ObserveAfter::Look;
  mcp::Server server(std::move(options));

  if (flags.http.empty()) return mcp::serve_stdio(server, STDIN_FILENO, std::cout, &handle_interrupts());
  if (!loopback(host)) {
    std::cerr << "vimgpt: warning: serving MCP on " << host
              << ", not loopback: anyone who can reach it drives this browser"
              << (flags.token.empty() ? " (and no --token is set)" : "") << "\n";
  }
  mcp::HttpOptions http;
  http.host = host;
  http.port = port;
  http.token = flags.token;
  http.stop = &handle_interrupts();
  http.ready = [&](int bound) {
    std::cerr << "vimgpt: MCP on http://" << (host.find(':') != std::string::npos ? "[" + host + "]" : host) << ":"
              << bound << "/mcp\n"
              << std::flush;
  };
  if (auto served = mcp::serve_http(server, http); !served) {
    std::cerr << "vimgpt: " << served.error().message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace vimgpt::cli
