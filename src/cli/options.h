// Private to src/cli: every flag's value, and turning them into module options (validated before any
// browser starts).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "cli/config.h"
#include "common/result.h"
#include "fleet/fleet.h"

namespace CLI {
class App;
}

namespace vimgpt::cli {

struct Options {
  // run
  std::string objective;
  std::string start_url = "https://www.google.com";
  int max_steps = 30;
  int max_actions = static_cast<int>(agent::kDefaultMaxActions);
  std::string output_schema;               // --output-schema FILE.json
  bool verify = false;                     // --verify
  std::string verify_model;                // --verify-model: implies --verify
  std::chrono::milliseconds timeout{0};    // --timeout: the run's budget; 0: none
  std::chrono::milliseconds settle{3000};  // --settle-ms
  std::string actions_file;
  std::string record;
  bool json = false;
  int verbosity = 0;  // -v +1, -q -1
  std::vector<std::string> secrets;
  std::vector<std::string> http_credentials;  // HOST=SECRET, the secret's value user:password
  std::vector<std::string> allow_domains;
  std::vector<std::string> block_domains;
  std::string secrets_file;
  bool confirm = false;
  bool confirm_risky = false;  // --confirm-risky: only what agent::risk_of names is asked
  std::string consent = "reject";
  int max_restarts = 2;
  int max_tabs = 8;
  std::string download_dir;
  std::string upload_dir;
  bool no_ask = false;
  std::string cache;  // --cache DIR: replay the task from it, keep finished runs in it
  bool no_cache = false;
  std::string live;  // --live HOST:PORT: the live view
  // browser
  bool headed = false;
  bool xvfb = false;   // headed, on a virtual display of its own
  std::string engine;  // --engine chromium|firefox; empty: $VIMGPT_ENGINE, else chromium
  std::string viewport = "1080x720";
  std::string chrome;
  std::string user_data_dir;
  std::string user_agent;
  std::string extension;
  std::vector<std::string> browsers;         // --browser: remote DevTools endpoints instead of a local Chromium
  std::vector<std::string> browser_headers;  // --browser-header "NAME: VALUE"
  std::string webdriver_capabilities;        // --webdriver-capabilities: JSON, or a file holding it
  // hints and observation
  std::string hint_mode = "overlay";
  std::string hint_rules = "vimgpt";  // --hints
  std::string observe = "vision";
  // model
  std::string provider = "auto";
  std::string model;
  std::string base_url;
  std::string api_key;
  std::string api_key_file;  // --api-key-file, or api-key-file in a config file: a file holding only the key
  int max_tokens = 300;
  std::string effort;
  double temperature = -1;
  std::string detail = "auto";
  std::string structured = "auto";
  std::string dialect;          // --dialect: how a model the catalogue does not know speaks (a family or a dialect)
  std::string mode = "labels";  // --mode: labels, or computer-use (the provider's own computer tool)
  std::string img_res = std::string(vision::kDefaultImagePreset);
  std::string image_format = "jpeg";
  int jpeg_quality = 85;
  std::string repair_model;
  std::string formalize_model;
  int max_retries = 4;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{120'000};
  double price_in = -1;
  double price_out = -1;
  double price_cached = -1;
  std::string prompt_cache = "auto";
  int history = vision::kFullHistory;
  int frames = 1;
  // budgets
  double max_cost = 0;
  std::int64_t max_tokens_total = 0;
  // voice
  bool voice = false;
  std::string voice_file;
  std::string mic;
  std::chrono::milliseconds max_listen{15'000};
  std::string stt = "local";
  std::string stt_model = "whisper-1";
  bool yes = false;
  bool speak = false;
  std::string speak_to;
};

void add_browser_flags(CLI::App& app, Options& options);
void add_model_flags(CLI::App& app, Options& options);
void add_run_flags(CLI::App& app, Options& options);
void add_verify_flags(CLI::App& app, Options& options);  // --verify, --verify-model: run, batch, mcp
void add_budget_flags(CLI::App& app, Options& options);  // --max-cost, --max-tokens-total (run, batch, mcp)
void add_live_flag(CLI::App& app, Options& options);     // --live (run, batch, mcp)
// A flag that takes a duration: 500ms, 3s, 2m, 1h, 1m30s, or a plain number in the flag's own unit (milliseconds for
// a flag named *-ms, else seconds); anything else is a usage error saying what to write.
void add_duration_option(CLI::App& app, const std::string& name, std::chrono::milliseconds& value,
                         const std::string& help);

struct Viewport {
  int width = 0;
  int height = 0;
};
Result<Viewport> parse_viewport(const std::string& text);

Result<launch::LaunchOptions> launch_options(const Options& options, const Config& config);
Result<browser::TabOptions> tab_options(const Options& options);
Result<hints::CaptureOptions> capture_options(const Options& options);
// The open family's dialect the run's model speaks: --dialect's, else the catalogue's; nullptr for vimgpt's own.
const vision::Dialect* dialect_of(const Options& options);
// Everything about the model, from flags, then the environment, then .env. A run with no model configured
// is an error naming the three ways to configure one.
Result<vision::ClientOptions> client_options(const Options& options, const Config& config);
// Whose the model the flags, the environment and .env name (or the default one) is, by its name: which of the
// OPENAI_*, ANTHROPIC_* and GEMINI_* variables apply.
vision::Provider model_provider(const Options& options, const Config& config);
// The model a run would ask: the one named, else the default the keys select.
std::string effective_model(const Options& options, const Config& config);
// What --mode auto means for that model: the mode the catalogue says it is best in; labels behind a compatible
// server, which has no provider's computer tool.
std::string auto_mode(const Options& options, const Config& config);
// What the person should know of the model before a run (unknown to the catalogue, ending, a flag it does not
// take), on standard error, once.
void print_model_notices(const vision::ClientOptions& model);
// --secret and --secrets-file, read once: each secret's value by name (a one-time code's key checked), and where each
// secret bound to hosts (--secret NAME@HOST=VALUE) may be typed.
struct Secrets {
  std::map<std::string, std::string> values;
  std::map<std::string, agent::NavigationPolicy> sites;
};
Result<Secrets> secrets(const Options& options);
// --http-credentials: each site's user name and password (a secret's "user:password"), by host (any port).
Result<browser::CredentialsLookup> credentials_lookup(const Options& options);
// A usage error (exit 64): a flag's value that cannot be used, in words that say what to give instead.
Failure usage_error(const std::string& message);

// What `run` and each `batch` task need from the flags, every flag checked (before any browser starts).
struct RunSettings {
  launch::LaunchOptions launch;
  browser::TabOptions tab;
  hints::CaptureOptions capture;
  agent::PlannerSettings planner;  // what the model is shown; secret names included
  Secrets secrets;
  std::optional<vision::ClientOptions> model;     // absent when --actions replays a script instead
  std::optional<vision::ClientOptions> checker;   // --verify's: the model's, or --verify-model on its server
  std::optional<JsonSchema> answer_schema;        // --output-schema
  consent::Mode consent = consent::Mode::Reject;  // --consent; Off when this build has no autoconsent (said once)
};
// IfConfigured: a replay heals with the model when one is configured and stops at a divergence when none is.
enum class ModelUse { Required, ScriptInstead, IfConfigured };
// InvalidArgument (a usage error) naming the flag at fault.
Result<RunSettings> run_settings(const Options& options, const Config& config, ModelUse model);
// --verify's client options: the run's model's, or --verify-model's on the same server.
vision::ClientOptions checker_options(const Options& options, const vision::ClientOptions& model);
// --verify's client: none (`checker` unset), the run's own `client` when the check asks its model, else one made
// for the check (held in `own`).
struct CheckerClient {
  std::unique_ptr<vision::Client> own;
  vision::Client* client = nullptr;
};
Result<CheckerClient> checker_client(const std::optional<vision::ClientOptions>& checker, vision::Client* client);
// --browser-header and --webdriver-capabilities, checked: InvalidArgument naming the flag at fault.
Result<fleet::BrowserOptions> remote_options(const Options& options);
// A JSON Schema typed answers must fit (`where` names it in errors: "--output-schema FILE", "task line 3"):
// InvalidArgument saying what is wrong with it.
Result<JsonSchema> answer_schema(const nlohmann::json& schema, const std::string& where);
// The agent's options both commands share; the caller adds what is its own (objective, recording, asking).
agent::AgentOptions agent_options(const Options& options, const RunSettings& settings);

// Ctrl-C (and SIGTERM): the first sets the flag the returned reference reads, so the running step finishes,
// the browser closes and the records are complete; a second leaves at once (exit 130).
const std::atomic<bool>& handle_interrupts();
// Whether the person stopped the run (false until handle_interrupts() has been called and a signal came): what every
// wait on a remote server checks.
bool stop_requested();

}  // namespace vimgpt::cli
