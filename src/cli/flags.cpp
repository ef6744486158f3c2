// The command line's flags: what each command takes, declared with CLI11 into Options (options.cpp turns them into
// settings).
#include <CLI/CLI.hpp>

#include "cli/options.h"
#include "common/duration.h"

namespace vimgpt::cli {

void add_browser_flags(CLI::App& app, Options& o) {
  app.add_flag("--headed", o.headed, "Show the browser window (default: headless)");
  app.add_option("--engine", o.engine,
                 "The browser: chromium (default) or firefox (Debian's firefox-esr, over WebDriver BiDi; see "
                 "docs/engines.md for what it does not do yet); default $VIMGPT_ENGINE, else chromium");
  app.add_flag("--xvfb", o.xvfb,
               "Run the full browser headed on a virtual display of its own (Xvfb), on a machine without one: what "
               "a site sees is a person's browser");
  app.add_option("--viewport", o.viewport, "Viewport size WxH (default 1080x720, as the original)");
  app.add_option("--consent", o.consent,
                 "Cookie-consent dialogs: reject (default: answered before the model sees the page, refusing "
                 "consent, by DuckDuckGo's autoconsent), accept (consent given, on the platforms autoconsent knows "
                 "how to accept on) or off (left to the model)");
  app.add_option("--hints", o.hint_rules,
                 "Which elements get labels: vimgpt (default: Vimium's, and what a person would click beyond them: "
                 "pointer cursors, click handlers, delegated handlers, read-only pickers, what opens something) or "
                 "vimium (exactly Vimium's)");
  app.add_option("--chrome", o.chrome,
                 "Chromium binary (default $CHROME_PATH, else chromium-headless-shell when headless, else "
                 "/usr/lib/chromium/chromium)");
  app.add_option("--user-data-dir", o.user_data_dir,
                 "Persistent browser profile folder (default: a fresh temporary one)");
  app.add_option("--user-agent", o.user_agent,
                 "User-Agent override (default: the full browser's, never HeadlessChrome)");
  app.add_option("--extension", o.extension, "Load an unpacked extension folder (e.g. a real Vimium)");
  app.add_option("--browser", o.browsers,
                 "Use a running browser: ws://HOST:PORT/devtools/browser/ID, http://HOST:PORT[?token=T] (browserless), "
                 "with --engine firefox ws://HOST:PORT (a Firefox's BiDi socket), or webdriver+http://HOST:4444 (a "
                 "Selenium Grid session each; repeatable for batch)");
  app.add_option("--browser-header", o.browser_headers,
                 "\"NAME: VALUE\" sent with every request to --browser (a fleet's authorisation; repeatable)");
  app.add_option("--webdriver-capabilities", o.webdriver_capabilities,
                 "JSON object (or a file holding one) merged into a webdriver+ session's alwaysMatch capabilities");
}

void add_model_flags(CLI::App& app, Options& o) {
  app.add_option("--provider", o.provider,
                 "Whose rules the requests follow: auto (by base URL and model), openai, anthropic (their APIs, or a "
                 "gateway in front of them), gemini (Google's OpenAI-compatible endpoint), compatible (any other "
                 "OpenAI-compatible server)");
  app.add_option(
      "--model", o.model,
      "Model name (default " + std::string(vision::kDefaultModel) + ", or " +
          std::string(vision::kDefaultAnthropicModel) + " with only ANTHROPIC_API_KEY set, " +
          std::string(vision::kDefaultGeminiModel) +
          " with only GEMINI_API_KEY; claude-* selects Anthropic, gemini-* Google; vimgpt models lists them)");
  app.add_option("--base-url", o.base_url,
                 "API base URL, e.g. http://127.0.0.1:11434/v1 for Ollama ($OPENAI_BASE_URL, $ANTHROPIC_BASE_URL)");
  app.add_option("--api-key", o.api_key, "API key ($OPENAI_API_KEY / $ANTHROPIC_API_KEY / $GEMINI_API_KEY, or .env)");
  app.add_option("--api-key-file", o.api_key_file,
                 "A file holding only the API key (a config file's api-key-file; the key itself is never in one)");
  app.add_option("--max-tokens", o.max_tokens,
                 "Most tokens of a reply's answer (default 300; a model that reasons gets room for it on top)");
  app.add_option("--effort", o.effort,
                 "Reasoning effort (none, minimal, low, medium, high, xhigh, max: what the model takes; default: the "
                 "lowest that answers)");
  app.add_option("--temperature", o.temperature,
                 "Sampling temperature (default: the server's; not sent to models that refuse it)");
  app.add_option("--detail", o.detail, "Image detail: low, high, auto");
  app.add_option("--structured", o.structured, "Structured output: auto, on, off");
  app.add_option(
      "--dialect", o.dialect,
      "How the model speaks, for one the catalogue does not know: a family (qwen2.5-vl, qwen3-vl, fara, "
      "fara-1.5, ui-tars-1.5, gui-owl-1.5, glm-v, holo3, molmoweb), a dialect (computer_use, ui_tars, glm_marks, "
      "holo_json, molmoweb_json), or vimgpt");
  app.add_option("--mode", o.mode,
                 "How the model acts: labels (vimgpt's yellow labels, the default) or computer-use (the provider's "
                 "own computer tool on the unlabelled page: Anthropic's, OpenAI's or Gemini's; vimgpt models NAME says "
                 "which a model takes), or auto (the mode the catalogue says the model is best in, shown by vimgpt "
                 "models NAME)");
  app.add_option("--img-res", o.img_res,
                 "Width of the image sent to the model: a preset (" + vision::image_preset_names() + "; default " +
                     std::string(vision::kDefaultImagePreset) + ") or pixels");
  app.add_option("--image-format", o.image_format, "Image format sent to the model: jpeg, png");
  app.add_option("--jpeg-quality", o.jpeg_quality, "JPEG quality 1-100 (default 85)");
  app.add_option("--repair-model", o.repair_model, "Model for the JSON repair call (default: the same model)");
  app.add_option("--formalize-model", o.formalize_model,
                 "Two calls: the vision model answers in words, this model writes the action");
  app.add_option("--max-retries", o.max_retries, "Retries on 429/5xx/connection errors (default 4)");
  add_duration_option(app, "--connect-timeout", o.connect_timeout,
                      "Longest wait to connect to the model server (default 10s)");
  add_duration_option(app, "--request-timeout", o.request_timeout, "Longest wait for one model request (default 2m)");
  app.add_option("--price-in", o.price_in, "USD per million prompt tokens (overrides the built-in table)");
  app.add_option("--price-out", o.price_out, "USD per million completion tokens");
  app.add_option(
      "--price-cached", o.price_cached,
      "USD per million prompt tokens read from the provider's cache (default: the table's, else --price-in)");
  app.add_option("--prompt-cache", o.prompt_cache,
                 "Prompt caching: auto (Anthropic breakpoints; OpenAI's prompt_cache_key on api.openai.com), on, off");
  app.add_option("--history", o.history,
                 "Steps of history kept in full; older ones are folded to one line each (default " +
                     std::to_string(vision::kFullHistory) + ")");
  app.add_option("--frames", o.frames, "Frames per request: this step's and up to K-1 earlier ones (default 1)");
}

void add_budget_flags(CLI::App& app, Options& o) {
  app.add_option("--max-cost", o.max_cost,
                 "Stop before a model request that could take the run past this many USD (exit 2; default: none)");
  app.add_option("--max-tokens-total", o.max_tokens_total,
                 "Stop before a model request that could take the run past this many tokens (exit 2)");
}

void add_verify_flags(CLI::App& app, Options& o) {
  app.add_flag("--verify", o.verify,
               "Check the answer before the run ends done, by a request of its own (the task, the answer, the steps "
               "and the last frame); a failed check goes back to the model twice, then the run ends unverified "
               "(exit 7). Its cost counts in the budgets");
  app.add_option("--verify-model", o.verify_model,
                 "The model --verify's check asks (implies --verify; default: the run's model, on the same server)");
}

void add_run_flags(CLI::App& app, Options& o) {
  app.add_option("objective", o.objective, "What the agent should do (asked for on the terminal when omitted)");
  app.add_option("--start-url", o.start_url, "First page (default https://www.google.com)");
  app.add_option("--max-steps", o.max_steps, "Step budget (default 30)");
  app.add_option("--max-actions", o.max_actions,
                 "The most actions one {\"actions\": [...]} reply may hold (default 5; 1 turns lists off)");
  app.add_option("--output-schema", o.output_schema,
                 "FILE.json: the answer must be JSON valid against this JSON Schema (draft 4, 6 or 7); one that is "
                 "not is sent back to the model twice, then the run ends answer_invalid (exit 6)");
  add_duration_option(app, "--timeout", o.timeout, "Time budget: 90s, 5m (a plain number is seconds; default: none)");
  add_duration_option(
      app, "--settle-ms", o.settle,
      "Longest wait for a page to settle after an action (default 3000: a plain number is milliseconds)");
  app.add_option("--actions", o.actions_file, "Run a scripted list of actions (JSON array or JSONL) with no model");
  app.add_option("--record", o.record, "Record the run into DIR (or 'auto' for runs/<timestamp>/)");
  app.add_option("--cache", o.cache,
                 "Replay the task from DIR when it was done before (the model heals only what changed); keep "
                 "finished runs there");
  app.add_flag("--no-cache", o.no_cache,
               "With --cache: do the task afresh (the finished run still replaces the entry)");
  app.add_flag("--json", o.json, "JSON Lines events on stdout, for programs");
  app.add_flag(
      "-v,--verbose", [&o](std::int64_t n) { o.verbosity += static_cast<int>(n); }, "More output");
  app.add_flag(
      "-q,--quiet", [&o](std::int64_t n) { o.verbosity -= static_cast<int>(n); }, "Less output");
  app.add_option("--secret", o.secrets,
                 "NAME=VALUE: the model types <secret:NAME>, the value is never shown to it (NAME=totp:BASE32: the "
                 "one-time code for the moment it is typed; NAME@HOST=VALUE: typed only into HOST's pages and frames)");
  app.add_option("--secrets-file", o.secrets_file, "File of NAME=VALUE lines");
  app.add_option("--http-credentials", o.http_credentials,
                 "HOST=NAME: answer HOST's HTTP authentication (Basic, Digest) with the secret NAME, set as "
                 "user:password; never shown to the model (repeatable)");
  app.add_option("--allow-domain", o.allow_domains,
                 "Only these hosts may load (repeatable; *.example.com for subdomains)");
  app.add_option("--block-domain", o.block_domains, "These hosts never load (repeatable; wins over --allow-domain)");
  app.add_flag("--confirm", o.confirm, "Ask before each action: y(es), n(o), e(dit), q(uit)");
  app.add_flag("--confirm-risky", o.confirm_risky,
               "Ask, as --confirm does, only before an action that leaves the start page's sites (a navigation or a "
               "link), types a secret or gives the page a file");
  app.add_option("--max-restarts", o.max_restarts, "Start a crashed local browser again at most N times (default 2)");
  app.add_option("--max-tabs", o.max_tabs,
                 "Keep at most N tabs open: past it, the oldest tab not worked in is closed (default 8; 0: no limit)");
  app.add_option("--download-dir", o.download_dir, "Save downloads here (default: DIR/downloads with --record)");
  app.add_option("--upload-dir", o.upload_dir,
                 "Files the model may upload ({\"upload\": LABEL, \"file\": NAME}), only from this folder "
                 "(default: uploads refused)");
  app.add_flag("--no-ask", o.no_ask,
               "Never put the model's questions to the person: {\"ask\"} ends the run as needs_input (exit 4)");
  app.add_option("--hint-mode", o.hint_mode, "How labels are drawn: overlay, image, both-frames");
  app.add_option("--observe", o.observe,
                 "What the model gets: vision (the picture), hybrid (plus the hint list), or text (the hint list and "
                 "the page's text, no picture: for text-only models)");
  app.add_flag("--voice", o.voice, "Speak the objective (default microphone)");
  app.add_option("--voice-file", o.voice_file, "Transcribe the objective from an audio file");
  app.add_option("--mic", o.mic, "Microphone by name or index (see `vimgpt devices`)");
  add_duration_option(app, "--max-listen", o.max_listen, "Longest listening time (default 15s)");
  app.add_option("--stt", o.stt, "Speech to text: local (offline PocketSphinx) or openai");
  app.add_option("--stt-model", o.stt_model, "Transcription model for --stt openai (default whisper-1)");
  app.add_flag("-y,--yes", o.yes, "Do not ask to confirm a spoken objective");
  app.add_flag("--speak", o.speak, "Say progress and the answer aloud");
  app.add_option("--speak-to", o.speak_to, "Write the spoken answer to a WAV file instead");
}

void add_duration_option(CLI::App& app, const std::string& name, std::chrono::milliseconds& value,
                         const std::string& help) {
  const PlainUnit plain = name.ends_with("-ms") ? PlainUnit::Milliseconds : PlainUnit::Seconds;
  app.add_option_function<std::string>(
         name,
         [&value, name, plain](const std::string& text) {
           auto parsed = parse_duration(text, plain);
           // CLI11 prints it as "NAME: MESSAGE" and the command ends with the usage exit code.
           if (!parsed) throw CLI::ValidationError(name, parsed.error().message);
           value = *parsed;
         },
         help)
      ->type_name("DURATION");
}

void add_live_flag(CLI::App& app, Options& o) {
  app.add_option("--live", o.live,
                 "Serve the live view on HOST:PORT (e.g. 127.0.0.1:8765, :0 for any port): a page to watch the run, "
                 "pause it, take over and hand back; its address, with its token, is printed at the start");
}

}  // namespace vimgpt::cli
