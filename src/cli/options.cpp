#include "cli/options.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "common/file.h"
#include "common/text.h"
#include "common/totp.h"
#include "voice/voice.h"

namespace vimgpt::cli {

Failure usage_error(const std::string& message) {
  return fail(ErrorKind::InvalidArgument, message);
}

namespace {

using namespace std::chrono_literals;

// Set by the first SIGINT or SIGTERM once handle_interrupts() has installed the handlers.
std::atomic<bool> g_interrupted{false};

// --engine, else $VIMGPT_ENGINE, else chromium. Read here, not by CLI11's envname: the flag is bound on the main
// command and on each subcommand to the same variable, and the environment, applied to the one not given, overwrote
// the flag given.
Result<launch::Engine> chosen_engine(const Options& o) {
  std::string name = o.engine;
  if (name.empty()) {
    const char* from_environment = std::getenv("VIMGPT_ENGINE");
    name = from_environment != nullptr && *from_environment != '\0' ? from_environment : "chromium";
  }
  return launch::parse_engine(name);
}

}  // namespace

Result<Viewport> parse_viewport(const std::string& text) {
  const auto times = text.find_first_of("xX");
  const auto width = parse_digits(std::string_view(text).substr(0, times), 5);
  const auto height =
      times == std::string::npos ? std::nullopt : parse_digits(std::string_view(text).substr(times + 1), 5);
  if (!width || !height) return usage_error("--viewport takes WIDTHxHEIGHT, e.g. 1080x720, not '" + text + "'");
  Viewport viewport{*width, *height};
  if (viewport.width < 100 || viewport.height < 100 || viewport.width > 7680 || viewport.height > 4320) {
    return usage_error("--viewport must be between 100x100 and 7680x4320, not " + text);
  }
  return viewport;
}

Result<launch::LaunchOptions> launch_options(const Options& o, const Config& config) {
  launch::LaunchOptions launch;
  launch.chrome_path = o.chrome.empty() ? config.get("CHROME_PATH").value_or("") : o.chrome;
  if (o.xvfb && o.headed)
    return usage_error("--xvfb is headed on a virtual display: give --xvfb or --headed, not both");
  if (o.xvfb && !o.browsers.empty()) return usage_error("--xvfb starts a local browser; it does not go with --browser");
  launch.display = o.xvfb ? launch::Display::Xvfb : o.headed ? launch::Display::Headed : launch::Display::Headless;
  auto engine = chosen_engine(o);
  if (!engine) return engine.failure();
  launch.engine = *engine;
  if (launch.engine == launch::Engine::Firefox) {
    if (!o.extension.empty()) return usage_error("--extension loads a Chromium extension; not with --engine firefox");
    // A remote Firefox is its own BiDi socket or a WebDriver session's: a DevTools endpoint is Chromium's.
    for (const auto& url : o.browsers)
      if (!url.starts_with("webdriver+") &&
          ((!url.starts_with("ws://") && !url.starts_with("wss://")) || url.find("/devtools/") != std::string::npos))
        return usage_error(
            "--engine firefox reaches a running Firefox at its BiDi socket (--browser ws://HOST:PORT, "
            "as Firefox started with --remote-debugging-port prints it) or through a WebDriver server "
            "(--browser webdriver+http://HOST:PORT, a Selenium Grid); " +
            url + " is a DevTools endpoint, which is Chromium's");
  }
  launch.user_data_dir = o.user_data_dir;
  launch.extension_dir = o.extension;
  launch.user_agent = o.user_agent;
  if (!o.extension.empty() && !std::ifstream(o.extension + "/manifest.json")) {
    return usage_error("--extension " + o.extension + " has no manifest.json (give an unpacked extension folder)");
  }
  return launch;
}

Result<browser::TabOptions> tab_options(const Options& o) {
  VIMGPT_TRY(Viewport viewport, parse_viewport(o.viewport));
  browser::TabOptions tab;
  tab.viewport = {viewport.width, viewport.height, 1.0};
  tab.user_agent = o.user_agent;
  tab.download_dir = o.download_dir;
  auto policy = agent::NavigationPolicy::create(o.allow_domains, o.block_domains);
  if (!policy) return policy.failure();
  if (policy->restricts()) {
    tab.navigation_filter = [policy = *policy](const std::string& url) { return policy.refusal(url); };
  }
  VIMGPT_TRY(tab.http_credentials, credentials_lookup(o));
  return tab;
}

const vision::Dialect* dialect_of(const Options& o) {
  if (o.mode == "computer-use") return nullptr;  // the provider's tool, not an open family's dialect
  if (!o.dialect.empty()) return o.dialect == "vimgpt" ? nullptr : vision::find_dialect(o.dialect);
  const vision::ModelSpec* spec = o.model.empty() ? nullptr : vision::find_model(o.model);
  return spec != nullptr && spec->dialect ? &*spec->dialect : nullptr;
}

Result<hints::CaptureOptions> capture_options(const Options& o) {
  hints::CaptureOptions capture;
  auto mode = hints::parse_draw_mode(o.hint_mode);
  if (!mode) return usage_error("--hint-mode: " + mode.error().message);
  capture.mode = *mode;
  auto rules = hints::parse_hint_rules(o.hint_rules);
  if (!rules) return usage_error("--hints: " + rules.error().message);
  capture.find.rules = *rules;
  auto format = parse_image_format(o.image_format);
  if (!format || (*format != ImageFormat::Png && *format != ImageFormat::Jpeg)) {
    return usage_error("--image-format takes jpeg or png, not '" + o.image_format + "'");
  }
  capture.screenshot.format = *format;
  if (o.jpeg_quality < 1 || o.jpeg_quality > 100) return usage_error("--jpeg-quality takes 1 to 100");
  capture.screenshot.quality = o.jpeg_quality;
  auto width = vision::parse_image_width(o.img_res);
  if (!width) return usage_error(width.error().message);
  // Chromium scales at capture time, so the frame needs no decode and re-encode on our side.
  VIMGPT_TRY(Viewport viewport, parse_viewport(o.viewport));
  // An open family's frame is sized so its server's resize changes nothing: its pixels are the frame's.
  const vision::Dialect* dialect = dialect_of(o);
  if (dialect != nullptr && dialect->resize.factor > 0) {
    *width = vision::unchanged_width({viewport.width, viewport.height}, *width, dialect->resize);
  }
  // A family trained on numbered marks (GLM-V's web mode) is shown them.
  if (dialect != nullptr && dialect->reads_marks()) capture.find.labels = hints::LabelStyle::Numbers;
  // A provider's computer tool names points on the page as it shows itself.
  if (o.mode == "computer-use") capture.mode = hints::DrawMode::Unlabelled;
  capture.screenshot.scale = static_cast<double>(*width) / viewport.width;
  return capture;
}

void print_model_notices(const vision::ClientOptions& model) {
  if (auto client = vision::Client::create(model)) {
    for (const auto& notice : (*client)->notices()) std::cerr << "vimgpt: note: " << notice << "\n";
  }
}

namespace {

// The model, its provider and where to reach it: flags, then the environment, then .env.
Result<vision::ClientOptions> model_endpoint(const Options& o, const Config& config) {
  vision::ClientOptions client;
  auto provider = vision::parse_provider(o.provider);
  if (!provider) {
    return usage_error("--provider takes auto, openai, anthropic, gemini or compatible, not '" + o.provider + "'");
  }
  client.model = o.model.empty() ? config.get("VIMGPT_MODEL").value_or("") : o.model;
  if (client.model.empty()) {
    // Only an Anthropic (or only a Gemini) key: that provider's default, rather than an OpenAI model with no key.
    const bool only_other =
        o.api_key.empty() && o.base_url.empty() && !config.get("OPENAI_API_KEY") && !config.get("OPENAI_BASE_URL");
    const bool wants_anthropic = *provider == vision::Provider::Anthropic ||
                                 (only_other && *provider == vision::Provider::Auto && config.get("ANTHROPIC_API_KEY"));
    const bool wants_gemini = *provider == vision::Provider::Gemini ||
                              (only_other && *provider == vision::Provider::Auto && config.get("GEMINI_API_KEY"));
    client.model = std::string(wants_anthropic ? vision::kDefaultAnthropicModel
                               : wants_gemini  ? vision::kDefaultGeminiModel
                                               : vision::kDefaultModel);
  }
  const vision::Provider by_model = vision::resolve_provider(*provider, client.model);
  const bool anthropic = by_model == vision::Provider::Anthropic;
  client.base_url =
      !o.base_url.empty() ? o.base_url : config.get(anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL").value_or("");
  client.provider = vision::resolve_provider(*provider, client.model, client.base_url);
  client.api_key =
      !o.api_key.empty() ? o.api_key : config.get(std::string(vision::key_variable(by_model))).value_or("");
  return client;
}

}  // namespace

vision::Provider model_provider(const Options& o, const Config& config) {
  auto client = model_endpoint(o, config);
  auto provider = vision::parse_provider(o.provider);
  return client && provider ? vision::resolve_provider(*provider, client->model) : vision::Provider::OpenAI;
}

std::string effective_model(const Options& o, const Config& config) {
  auto client = model_endpoint(o, config);
  return client ? client->model : o.model;
}

std::string auto_mode(const Options& o, const Config& config) {
  auto client = model_endpoint(o, config);
  if (!client || client->provider == vision::Provider::Compatible) return "labels";
  return std::string(vision::to_string(vision::best_mode(client->model)));
}

namespace {

bool model_configured(const Options& o, const Config& config) {
  auto client = model_endpoint(o, config);
  return client && (!client->api_key.empty() || !client->base_url.empty());
}

}  // namespace

Result<vision::ClientOptions> client_options(const Options& o, const Config& config) {
  VIMGPT_TRY(vision::ClientOptions client, model_endpoint(o, config));
  if (client.api_key.empty() && client.base_url.empty()) {
    return usage_error(
        "no model is configured. Set one of: OPENAI_API_KEY (OpenAI, in the environment or a .env file), "
        "ANTHROPIC_API_KEY (Anthropic, with --model claude-...), GEMINI_API_KEY (Google, with --model gemini-...), "
        "api-key-file = \"PATH\" in a config file "
        "(docs/configuration.md), or --base-url URL for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp)");
  }
  if (o.max_tokens < 16 || o.max_tokens > 32768) return usage_error("--max-tokens takes 16 to 32768");
  client.max_tokens = o.max_tokens;
  if (o.temperature >= 0) client.temperature = o.temperature;
  client.effort = o.effort;
  auto detail = vision::parse_detail(o.detail);
  if (!detail) return usage_error("--detail takes low, high or auto, not '" + o.detail + "'");
  client.detail = *detail;
  auto structured = vision::parse_structured(o.structured);
  if (!structured) return usage_error("--structured takes auto, on or off, not '" + o.structured + "'");
  client.structured = *structured;
  client.dialect = o.dialect;
  auto mode = vision::parse_interaction_mode(o.mode);
  if (!mode) return usage_error(mode.error().message);
  client.mode = *mode;
  client.repair_model = o.repair_model;
  client.formalize_model = o.formalize_model;
  auto format = parse_image_format(o.image_format);
  if (!format || (*format != ImageFormat::Png && *format != ImageFormat::Jpeg))
    return usage_error("--image-format takes jpeg or png, not '" + o.image_format + "'");
  auto width = vision::parse_image_width(o.img_res);
  if (!width) return usage_error(width.error().message);
  client.image = {*width, *format, o.jpeg_quality};
  if (o.max_retries < 0 || o.max_retries > 20) return usage_error("--max-retries takes 0 to 20");
  client.retry.max_retries = o.max_retries;
  if (o.connect_timeout <= 0ms) return usage_error("--connect-timeout takes a duration above 0, e.g. 10s");
  if (o.request_timeout <= 0ms) return usage_error("--request-timeout takes a duration above 0, e.g. 2m");
  client.connect_timeout = o.connect_timeout;
  client.total_timeout = o.request_timeout;
  if (o.price_in >= 0) client.price_in = o.price_in;
  if (o.price_out >= 0) client.price_out = o.price_out;
  if (o.price_cached >= 0) client.price_cached = o.price_cached;
  // What the model cannot take is a usage error now, before any browser starts.
  if (auto probe = vision::Client::create(client); !probe) return usage_error(probe.error().message);
  auto cache = vision::parse_prompt_cache(o.prompt_cache);
  if (!cache) return usage_error(cache.error().message);
  client.prompt_cache = *cache;
  if (o.history < 1 || o.history > 1000) return usage_error("--history takes 1 to 1000 steps");
  client.full_history = o.history;
  return client;
}

Result<fleet::BrowserOptions> remote_options(const Options& o) {
  fleet::BrowserOptions remote;
  auto engine = chosen_engine(o);
  if (!engine) return engine.failure();
  remote.engine = *engine;
  for (const auto& header : o.browser_headers) {
    const auto colon = header.find(':');
    if (colon == std::string::npos || colon == 0) return usage_error("--browser-header takes \"NAME: VALUE\"");
    const auto value_start = header.find_first_not_of(' ', colon + 1);
    remote.headers.emplace_back(header.substr(0, colon),
                                value_start == std::string::npos ? "" : header.substr(value_start));
  }
  if (!o.webdriver_capabilities.empty()) {
    std::string text = o.webdriver_capabilities;
    if (text.find_first_not_of(" \t\n") != std::string::npos && text[text.find_first_not_of(" \t\n")] != '{') {
      auto file = read_file(text);
      if (!file) return usage_error("--webdriver-capabilities takes a JSON object or a file holding one: " + text);
      text = std::move(*file);
    }
    remote.webdriver_capabilities = nlohmann::json::parse(text, nullptr, false);
    if (!remote.webdriver_capabilities.is_object()) {
      return usage_error("--webdriver-capabilities: not a JSON object: " + o.webdriver_capabilities);
    }
  }
  const bool webdriver = std::any_of(o.browsers.begin(), o.browsers.end(),
                                     [](const std::string& url) { return url.starts_with("webdriver+"); });
  if (!o.webdriver_capabilities.empty() && !webdriver) {
    return usage_error("--webdriver-capabilities goes with --browser webdriver+http://HOST:PORT");
  }
  return remote;
}

vision::ClientOptions checker_options(const Options& o, const vision::ClientOptions& model) {
  // The same server, key and rules; another model when one is named. Never a vision dialect or a formalizer: the
  // check is vimgpt's own request.
  vision::ClientOptions checker = model;
  if (!o.verify_model.empty()) checker.model = o.verify_model;
  checker.formalize_model.clear();
  checker.dialect = "vimgpt";
  return checker;
}

Result<CheckerClient> checker_client(const std::optional<vision::ClientOptions>& checker, vision::Client* client) {
  CheckerClient made;
  if (!checker) return made;
  if (client != nullptr && checker->model == client->options().model) {
    made.client = client;
    return made;
  }
  auto created = vision::Client::create(*checker);
  if (!created) return fail(created.error().kind, "--verify-model: " + created.error().message);
  made.own = std::move(*created);
  made.client = made.own.get();
  return made;
}

Result<RunSettings> run_settings(const Options& o, const Config& config, ModelUse model) {
  RunSettings settings;
  VIMGPT_TRY_VOID(remote_options(o));
  VIMGPT_TRY(settings.launch, launch_options(o, config));
  VIMGPT_TRY(settings.tab, tab_options(o));
  VIMGPT_TRY(settings.capture, capture_options(o));
  VIMGPT_TRY(settings.planner.observe, agent::parse_observe(o.observe));
  VIMGPT_TRY(settings.secrets, secrets(o));
  auto consent_mode = consent::parse_mode(o.consent);
  if (!consent_mode) return usage_error(consent_mode.error().message);
  settings.consent = *consent_mode;
  if (settings.consent != consent::Mode::Off && !consent::available()) {
    std::cerr << "vimgpt: note: this build has no autoconsent, so cookie-consent dialogs are left to the model (run "
                 "`npm ci` in src/consent and build again, or pass --consent off)\n";
    settings.consent = consent::Mode::Off;
  }
  for (const auto& [name, value] : settings.secrets.values) settings.planner.secret_names.push_back(name);
  for (const auto& [name, sites] : settings.secrets.sites) settings.planner.secret_hosts[name] = sites.allowed_text();
  if (o.frames < 1 || o.frames > 4) return usage_error("--frames takes 1 to 4");
  if (o.frames > 1 && settings.capture.mode == hints::DrawMode::BothFrames) {
    return usage_error("--frames and --hint-mode both-frames both add images: choose one");
  }
  if (o.frames > 1 && settings.planner.observe == agent::Observe::Text) {
    return usage_error("--observe text sends no frames: drop --frames");
  }
  settings.planner.frames = o.frames;
  if (o.mode == "computer-use" && o.frames == 1 && settings.planner.observe == agent::Observe::Vision) {
    settings.planner.frames = vision::kComputerToolScreenshots;
  }
  // An open family sees its authors' number of recent screenshots, unless --frames says otherwise, and a family
  // that reads marks the list of the marked elements beside them, as its authors' harness sends it.
  if (const vision::Dialect* dialect = dialect_of(o); dialect != nullptr) {
    if (o.frames == 1 && settings.capture.mode != hints::DrawMode::BothFrames &&
        settings.planner.observe != agent::Observe::Text) {
      settings.planner.frames = dialect->screenshots;
    }
    if (dialect->reads_marks() && settings.planner.observe == agent::Observe::Vision) {
      settings.planner.observe = agent::Observe::Hybrid;
    }
  }
  if (o.max_actions < 1 || o.max_actions > 20) return usage_error("--max-actions takes 1 to 20");
  settings.planner.max_actions = static_cast<std::size_t>(o.max_actions);
  if (!o.output_schema.empty()) {
    const auto text = read_file(o.output_schema);
    if (!text) return usage_error("--output-schema: cannot read " + o.output_schema);
    const auto document = nlohmann::json::parse(*text, nullptr, false);
    if (document.is_discarded()) return usage_error("--output-schema: " + o.output_schema + " is not JSON");
    VIMGPT_TRY(settings.answer_schema, answer_schema(document, "--output-schema " + o.output_schema));
    settings.planner.answer_schema = document;
  }
  if (o.max_cost < 0) return usage_error("--max-cost takes an amount in USD (0: no limit)");
  if (o.max_tokens_total < 0) return usage_error("--max-tokens-total takes a number of tokens (0: no limit)");
  if (o.max_steps < 1 || o.max_steps > 1000) return usage_error("--max-steps takes 1 to 1000");
  if (o.settle > 60s) return usage_error("--settle-ms takes up to 60000 (60s)");
  if (o.max_listen < 1s || o.max_listen > 120s) return usage_error("--max-listen takes 1s to 120s");
  if (o.max_restarts < 0 || o.max_restarts > 10) return usage_error("--max-restarts takes 0 to 10");
  if (o.max_tabs < 0 || o.max_tabs == 1) return usage_error("--max-tabs takes 2 or more (0: no limit)");
  if (!voice::parse_stt_backend(o.stt)) return usage_error("--stt takes local or openai");
  std::error_code error;
  if (!o.upload_dir.empty() && !std::filesystem::is_directory(o.upload_dir, error)) {
    return usage_error("--upload-dir " + o.upload_dir +
                       " is not a folder (create it and put the files to offer in it)");
  }
  if (model == ModelUse::Required || (model == ModelUse::IfConfigured && model_configured(o, config))) {
    VIMGPT_TRY(settings.model, client_options(o, config));
    print_model_notices(*settings.model);
    if (o.max_cost > 0 && !vision::default_price(settings.model->model) &&
        !(settings.model->price_in && settings.model->price_out)) {
      return usage_error("--max-cost needs the price of model " + settings.model->model +
                         ", which vimgpt's catalogue does not know (vimgpt models): pass --price-in and --price-out");
    }
  }
  if (o.verify || !o.verify_model.empty()) {
    if (!o.actions_file.empty()) return usage_error("--verify checks a model's answer: not with --actions");
    if (settings.model) settings.checker = checker_options(o, *settings.model);
  }
  return settings;
}

Result<JsonSchema> answer_schema(const nlohmann::json& schema, const std::string& where) {
  auto read = JsonSchema::read(schema);
  if (!read) return usage_error(where + ": " + read.error().message);
  return read;
}

agent::AgentOptions agent_options(const Options& o, const RunSettings& settings) {
  agent::AgentOptions options;
  options.objective = o.objective;
  options.start_url = o.start_url;
  options.max_steps = o.max_steps;
  options.timeout = o.timeout;
  options.settle_cap = o.settle;
  options.capture = settings.capture;
  options.secrets = settings.secrets.values;
  options.secret_sites = settings.secrets.sites;
  options.max_restarts = o.max_restarts;
  options.max_tabs = o.max_tabs;
  options.upload_dir = o.upload_dir;
  options.confirm_only_risky = o.confirm_risky && !o.confirm;
  options.max_cost_usd = o.max_cost;
  options.max_tokens_total = o.max_tokens_total;
  options.max_actions = settings.planner.max_actions;
  options.answer_schema = settings.answer_schema;
  options.consent = settings.consent;
  return options;
}

namespace {

void on_interrupt(int) {
  if (g_interrupted.exchange(true)) ::_exit(130);
}

}  // namespace

const std::atomic<bool>& handle_interrupts() {
  static const bool installed = [] {
    ::signal(SIGINT, on_interrupt);
    ::signal(SIGTERM, on_interrupt);
    return true;
  }();
  (void)installed;
  return g_interrupted;
}

bool stop_requested() {
  return g_interrupted.load();
}

}  // namespace vimgpt::cli
