// vision: turns a captured frame and the user's objective into one model request, and the model's reply into
// an action object. Knows nothing about the browser: frames arrive as encoded images, actions leave as JSON.
//
//   auto client = vision::Client::create(options);         // provider, model, key, image and retry settings
//   auto decision = (*client)->decide(step);               // objective + image(s) + history → action
//   decision->action;                                      // {"click": "AB", "type": "hello"}
//
// Providers: OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp server, OpenRouter) and the
// Anthropic Messages API. https://platform.openai.com/docs/api-reference/chat
// https://docs.anthropic.com/en/api/messages
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/encoded_image.h"
#include "common/pixels.h"
#include "common/result.h"
#include "http/http.h"
#include "vision/open_families.h"

namespace vimgpt::vision {

using Json = nlohmann::json;
using Milliseconds = std::chrono::milliseconds;

// ---------------------------------------------------------------------------------------------------------------
// Images

// One type for every encoded image (common/encoded_image.h); a model is sent PNG or JPEG.
using vimgpt::EncodedImage;
using vimgpt::ImageFormat;
using vimgpt::inspect_image;
using vimgpt::Pixels;  // common/pixels.h
using vimgpt::scale_to_width;

Result<EncodedImage> load_image_file(const std::string& path);

Result<Pixels> decode_image(const EncodedImage& image);
Result<EncodedImage> encode_image(const Pixels& pixels, ImageFormat format, int jpeg_quality);

// --img-res presets, named by what they cost: each is the widest 3:2 frame of its OpenAI tile count.
//   original 1080 (6 tiles, 1,105 tokens; Anthropic 1,037)   high 1024 (4 tiles, 765; 932)
//   medium 768 (2 tiles, 425; 524)                          low 512 (1 tile, 255; 233)
// Below 1080 the labels are drawn 1.2x as tall in the frame as the original's (hints::CaptureOptions::
// label_scale); tests/browser/legibility_test.cpp reads them back with tesseract at every preset.
struct ImagePreset {
  std::string_view name;
  int width;
};
inline constexpr std::array<ImagePreset, 4> kImagePresets{
    {{"original", 1080}, {"high", 1024}, {"medium", 768}, {"low", 512}}};
inline constexpr std::string_view kDefaultImagePreset = "medium";
// A preset's width by name; 0 when there is no such preset.
constexpr int preset_width(std::string_view name) {
  for (const auto& preset : kImagePresets) {
    if (preset.name == name) return preset.width;
  }
  return 0;
}
std::string image_preset_names();  // "original, high, medium, low"
// A preset's name or a width in pixels (64 to 4096).
Result<int> parse_image_width(std::string_view text);

struct ImageOptions {
  int width = preset_width(kDefaultImagePreset);  // --img-res; 0 keeps the captured width
  // JPEG by default: several times smaller and faster to encode than PNG, and the black-on-yellow labels
  // survive quality 85 intact. Token cost depends only on the size, not the format.
  ImageFormat format = ImageFormat::Jpeg;
  int jpeg_quality = 85;
};

// Scales and re-encodes only when needed: an image already at the wanted width and format (e.g. scaled by
// Chromium at capture time) passes through untouched.
Result<EncodedImage> prepare_image(const EncodedImage& image, const ImageOptions& options);
Result<EncodedImage> prepare_image(const Pixels& pixels, const ImageOptions& options);
// The image within a provider's limits: scaled down to its largest edge, then (when its base64 is still too large)
// re-encoded as JPEG at lower quality and smaller sizes. Unchanged when it already fits. `max_edge` and
// `max_base64_bytes` of 0 are no limit.
Result<EncodedImage> fit_image(const EncodedImage& image, int max_edge, std::size_t max_base64_bytes);

// ---------------------------------------------------------------------------------------------------------------
// Providers, detail, token and cost estimates

// OpenAI and Anthropic: their own APIs (or a gateway in front of them: --provider says so), with the rules the
// catalogue gives each model. Gemini: Google's OpenAI-compatible endpoint (the Chat Completions wire, Google's
// keys, errors and model rules). Compatible: any other OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio,
// OpenRouter): the Chat Completions wire with the generic rules (max_tokens, no reasoning fields).
enum class Provider { Auto, OpenAI, Anthropic, Gemini, Compatible };
enum class Detail { Auto, Low, High };
enum class Structured { Auto, On, Off };
std::string_view to_string(Provider provider);
std::string_view to_string(Detail detail);
std::string_view to_string(Structured structured);
Result<Provider> parse_provider(std::string_view text);  // "auto" | "openai" | "anthropic" | "gemini" | "compatible"
Result<Detail> parse_detail(std::string_view text);      // "auto" | "low" | "high"
Result<Structured> parse_structured(std::string_view text);  // "auto" | "on" | "off"

inline constexpr std::string_view kOpenAIBaseUrl = "https://api.openai.com/v1";
// The official SDKs' form (ANTHROPIC_BASE_URL too): no /v1, which the request path carries. A base URL that
// ends in /v1 (vimgpt's earlier form) is read the same way.
inline constexpr std::string_view kAnthropicBaseUrl = "https://api.anthropic.com";
// Google's OpenAI-compatible endpoint (ai.google.dev/gemini-api/docs/openai), without the trailing slash.
inline constexpr std::string_view kGeminiBaseUrl = "https://generativelanguage.googleapis.com/v1beta/openai";
// The environment variable a provider's key is read from: OPENAI_API_KEY (also for compatible servers),
// ANTHROPIC_API_KEY, GEMINI_API_KEY.
std::string_view key_variable(Provider provider);

// Auto: by the base URL when it is a provider's own (api.openai.com, api.anthropic.com, Google's); else Anthropic
// for bare "claude-*" models and Gemini for bare "gemini-*" ones without a base URL ("anthropic/claude-..." is an
// OpenRouter name); else OpenAI with no base URL and Compatible with any other.
Provider resolve_provider(Provider provider, std::string_view model, std::string_view base_url = {});

struct Price {
  double input_per_million = 0;   // USD per million prompt tokens
  double output_per_million = 0;  // USD per million completion tokens
  // Prompt tokens read from the provider's cache, and written to it (Anthropic; OpenAI from GPT-5.6 on: 1.25x
  // the input price; before, a write costs what any input token does).
  double cached_input_per_million = 0;
  double cache_write_per_million = 0;
};

// ---------------------------------------------------------------------------------------------------------------
// The model catalogue: src/vision/models.json, embedded at build time. What each model accepts, what its images
// and tokens cost and when it ends, with the date and the sources they were read from. `vimgpt models` prints it.

enum class ModelStatus { Active, Legacy, Deprecated, Retired };
// Responses: not served on Chat Completions. GenerateContent: Google's native API, the wire of Gemini's computer_use
// tool (--mode computer-use), which its OpenAI-compatible endpoint does not carry.
enum class ModelApi { Chat, Messages, Responses, GenerateContent };
// Whether a temperature other than the default is accepted: always, never, or only while the model does not
// reason (OpenAI's reasoning models at effort "none").
enum class TemperatureRule { Yes, No, WithoutReasoning };
// Anthropic's thinking: off unless asked; always on; or on by default and turned off with {"type": "disabled"}
// or, on Sonnet 5.5, {"type": "between_tools"}.
enum class Thinking { Off, Always, OffWhenDisabled, OffBetweenTools };
enum class StructuredMethod { None, JsonSchema, OutputConfig };  // response_format (strict) | output_config.format
std::string_view to_string(ModelStatus status);
std::string_view to_string(StructuredMethod method);

// How an image's tokens are counted.
//   Tiles (OpenAI, gpt-4o era): fit 2048x2048, shortest side down to 768, base + tile per 512-px tile; low = base.
//   Patches (OpenAI, gpt-5.2 on): ceil(w/32) * ceil(h/32), shrunk to fit `budget` patches, times `multiplier`.
//   ClaudeArea (Anthropic up to 4.6): long edge down to `long_edge`, then w*h/750.
//   ClaudePatches (Anthropic 4.7 on): long edge down to `long_edge`, ceil(w/28) * ceil(h/28), at most `max_tokens`.
//   PerImage (Gemini 3 on): `base` tokens for any image (the media resolution's, not the size's).
struct ImageTokenRule {
  enum class Kind { Tiles, Patches, ClaudeArea, ClaudePatches, PerImage } kind = Kind::Tiles;
  int base = 85;
  int tile = 170;
  int patch = 32;
  double multiplier = 1;
  int budget = 0;  // 0: none
  int long_edge = 0;
  int per = 750;
  int max_tokens = 0;      // 0: none
  bool estimated = false;  // the provider does not document it; a third party measured it
};
int estimate_image_tokens(const ImageTokenRule& rule, int width, int height, Detail detail);
// The rule for a model the catalogue does not know: OpenAI's tiles, Anthropic's area rule.
ImageTokenRule default_image_rule(Provider provider);

// A provider's own computer-use tool as a model takes it (the catalogue's "computer_tool"): the tool's type, the beta
// header that turns it on, and whether it has the zoom action.
struct ComputerTool {
  std::string type;  // "computer_20251124"
  std::string beta;  // "computer-use-2025-11-24"; empty: none (OpenAI's, Anthropic's toolset)
  bool zoom = false;
  // Anthropic's toolset (computer_toolset_20260801): one entry whose members are tools of their own, called by name.
  [[nodiscard]] bool toolset() const { return type.starts_with("computer_toolset_"); }
};

// How the model is asked to act: by vimgpt's labels (the seed's design, the default), or through its provider's own
// computer-use tool on the clean frame (--mode computer-use).
enum class InteractionMode { Labels, ComputerUse };
// The recent screenshots the computer tool's conversation keeps, as Anthropic's reference loop does
// (anthropic-quickstarts computer-use-demo streamlit.py at 44c2b5c: only_n_most_recent_images = 3).
inline constexpr int kComputerToolScreenshots = 3;
std::string_view to_string(InteractionMode mode);
Result<InteractionMode> parse_interaction_mode(std::string_view name);
// The mode a model is best used in, and why (models.json's "best_modes": what its provider says, what vimgpt's bench
// measured). `--mode auto` takes it.
struct BestMode {
  InteractionMode mode = InteractionMode::Labels;
  std::string why;
};

struct ModelSpec {
  std::string id;
  std::vector<std::string> aliases;  // other names of the same model (snapshots, -latest)
  Provider provider = Provider::OpenAI;
  ModelApi api = ModelApi::Chat;
  ModelStatus status = ModelStatus::Active;
  std::string shutdown;              // YYYY-MM-DD: when it stops (or stopped) answering; empty when none is announced
  std::string replacement;           // what the provider recommends instead
  std::string token_limit;           // the request's cap field: "max_completion_tokens" or "max_tokens"
  std::vector<std::string> efforts;  // reasoning efforts it accepts; empty: no effort field
  std::string effort;                // what vimgpt sends: the lowest that still answers
  // Tokens added to --max-tokens while the model reasons (they count against the cap): vimgpt's own choice, for
  // one frame at the lowest effort; 0 when the model answers without reasoning.
  int reasoning_reserve = 0;
  TemperatureRule temperature = TemperatureRule::Yes;
  Thinking thinking = Thinking::Off;
  StructuredMethod structured = StructuredMethod::None;
  ImageTokenRule images;
  // The tokenizer its text is counted with ("o200k_base"): the one a budget's bound counts a request's text by; empty
  // when vimgpt carries none of the model's (the bound then takes a token per 3 bytes).
  std::string tokenizer;
  std::optional<Price> price;
  std::vector<std::string> sources;  // where each fact was read
  std::string note;
  // An open family: how it speaks (DialectKind::Vimgpt for every provider's model).
  std::optional<Dialect> dialect;
  std::optional<ComputerTool> computer_tool;  // the provider's computer-use tool it takes; unset: none
  std::optional<BestMode> best_mode;          // set with computer_tool; without it, labels is the only mode
};

// Every model of the catalogue, in its order (newest families first).
const std::vector<ModelSpec>& model_catalogue();
// The dialect a family speaks by its family name ("qwen3-vl"), or a dialect by its name ("computer_use", with
// the first family that speaks it); nullptr when there is none.
const Dialect* find_dialect(std::string_view name);
// The day the catalogue's facts were read (YYYY-MM-DD).
std::string_view catalogue_read_on();
// A model by its id or an alias, or a dated snapshot of either (gpt-4o-2024-08-06, claude-haiku-4-5-20251001),
// or a GGUF file as llama.cpp serves it (a path, a quantization suffix and the extension taken off, case
// ignored: models/UI-TARS-1.5-7B-Q4_K_M.gguf); never by prefix: gpt-5.6-luna is not gpt-5. nullptr when unknown.
const ModelSpec* find_model(std::string_view name);
// The mode the catalogue says a model is best used in (labels for one it does not know or with no computer tool).
InteractionMode best_mode(std::string_view model);

// What a provider accepts of each image (0: no limit): Anthropic refuses an image over 5 MB of base64 or 8000 px
// a side (2000 px when a request has more than 20). prepare_image scales or re-encodes a frame to fit.
struct ImageLimits {
  std::size_t max_base64_bytes = 0;
  int max_edge = 0;
  int max_edge_many = 0;  // with more than `many_images` images in one request
  int many_images = 0;
};
ImageLimits image_limits(Provider provider);

// The model's list price from the catalogue; nullopt when it has none.
std::optional<Price> default_price(std::string_view model);

// The default model: current, vision-capable, not marked as ending (the catalogue's note says why this one).
inline constexpr std::string_view kDefaultModel = "gpt-6.1-terra";
// When only an Anthropic key is configured: Anthropic's "best combination of speed and intelligence".
inline constexpr std::string_view kDefaultAnthropicModel = "claude-sonnet-5-5";
// When only a Gemini key is configured: Google's current generally available Flash model (fast and cheap for a
// step; gemini-4-argon is the stronger and dearer choice).
inline constexpr std::string_view kDefaultGeminiModel = "gemini-3.8-flash";

struct Usage {
  std::int64_t prompt_tokens = 0;  // every input token, cached or not (Anthropic's three counts summed)
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;       // of prompt_tokens: read from the provider's prompt cache
  std::int64_t cache_write_tokens = 0;  // of prompt_tokens: written to it
  std::int64_t reasoning_tokens = 0;    // of completion_tokens: spent reasoning (OpenAI reasoning, Anthropic thinking)
  int requests = 0;
  double cost_usd = 0;  // 0 with cost_known false when no price is known for a model used
  bool cost_known = true;

  Usage& operator+=(const Usage& other);
  [[nodiscard]] std::int64_t total_tokens() const { return prompt_tokens + completion_tokens; }
};

// What is left of --max-cost and --max-tokens-total (nothing: that budget is not set).
struct BudgetLeft {
  std::optional<double> usd;
  std::optional<std::int64_t> tokens;
};

// Client::fit's answer: the reply cap to send (0: the model's own; -1: none fits, the request is not to be sent) and
// the most the request can cost with it (with the smallest cap when none fits).
struct FittedRequest {
  int max_tokens = 0;
  Usage bound;
};

// {"prompt_tokens", "cached_tokens", "cache_write_tokens", "completion_tokens", "reasoning_tokens", "requests",
// "cost_usd"}, the cost left out when it is not known: for recordings and --json events.
Json to_json(const Usage& usage);

// What `usage` costs at `price`: uncached prompt tokens at the input price, cached ones at the cached price,
// cache writes at the write price, completion at the output price.
double cost_of(const Usage& usage, const Price& price);

// ---------------------------------------------------------------------------------------------------------------
// Actions: the vocabulary, its JSON schema, and reply parsing with repair

// Keys the agent accepts: navigate, click, type, enter, done, scroll, back, key, select, option, upload, file,
// tab, close_tab, ask, wait, click_at, hover, double_click, right_click, drag, to, select_text, in, actions.
const std::vector<std::string>& action_keys();
// "Allowed keys: navigate (URL string), ...": the vocabulary in one line, for the repair and formalize calls.
std::string vocabulary_text();
// The schema a provider's structured output is given: {"action": one of a small object per action shape}
// ({"click": L}, {"click": L, "type": T}, {"navigate": U}, {"done": A}, ...), every key of a shape required, so a
// reply names only what it chose: {"action":{"click":"AB"}} is 7 tokens (o200k). Only keywords both OpenAI's
// strict mode and Anthropic's output_config.format take: the root is an object, unions are nested anyOf, no
// numeric or length bounds (the parser checks those).
const Json& action_schema();
// The same with done's value `answer` (from carried_answer_schema): a typed answer's schema, where the
// provider's structured output can carry it; null: action_schema() as it is.
Json action_schema(const Json& answer);
// --output-schema as both providers' structured outputs take it, or nothing when it cannot be carried without
// changing which answers fit: a "$ref", an object with optional properties or other properties allowed, an
// array without one item schema, nesting past their depth. Bounds they do not take (minimum, maxLength,
// pattern, minItems over 1, ...) are moved into the description, as Anthropic's SDKs do: the answer is checked
// against the whole schema locally anyway.
std::optional<Json> carried_answer_schema(const Json& schema);
// A structured reply as the action: {"action": {...}} unwrapped. Also reads the flat form every key listed with
// unused ones null (recordings of earlier versions): the action is what is left, "done": false is "not done",
// and a null "done" stays only when nothing else was chosen ({"done": null} alone).
Json structured_action(Json action);
// Keys of `action` outside the vocabulary, in order; reported to the user, never silently dropped.
std::vector<std::string> unknown_keys(const Json& action);

enum class Repair {
  None,   // the reply was valid JSON
  Local,  // fixed here without a model call (fences, quotes, commas, comments, truncation, ...)
  Model,  // a second, text-only call to the model fixed it
};
std::string_view to_string(Repair repair);

struct ParsedReply {
  Json action;  // always an object
  Repair repair = Repair::None;
  std::vector<std::string> fixes;  // what local repair changed, e.g. "removed code fence"
};

// Strict parse, then local repair. Parse error when neither yields an action object.
Result<ParsedReply> parse_reply(std::string_view text);

// ---------------------------------------------------------------------------------------------------------------
// The prompt

struct HistoryEntry {
  Json action;         // what the model asked for
  std::string result;  // what happened ("clicked link 'Sign in'", "typed 12 characters")
  std::string url;     // the page it happened on
  std::string error;   // why it failed, if it did
  // The model's own reply that chose the action, as it wrote it: an open family gets its turns back as its
  // authors' harness sends them. Empty for what was not a model's step (a pause, a recovery).
  std::string reply;
};

// An open tab as the prompt lists it (only when there is more than one).
struct TabEntry {
  int number = 0;  // what {"tab": N} names, from 1
  std::string title;
  std::string host;
  bool current = false;
};

struct StepRequest {
  std::string objective;
  // The labelled frame last; before it the clean frame (--both-frames) or earlier steps' frames (--frames K),
  // oldest first. None with --observe text.
  std::vector<EncodedImage> images;
  int earlier_frames = 0;  // how many of `images` are earlier steps' frames
  // A provider's computer tool asked for a closer look at a region (Anthropic's zoom): that region, sent as the zoom's
  // result in place of the frame. Points stay in the frame's space.
  std::optional<EncodedImage> closer_look;
  std::vector<HistoryEntry> history;
  std::string current_url;
  std::string current_title;
  std::string page_note;  // vimgpt's own words on what the page is ("a PDF: pages 1-20 of 37 shown"), not page data
  std::string hint_text;  // --observe hybrid or text: one line per label (label, role, name, href); empty: none
  std::string page_text;  // --observe text: the page's visible text (no image is sent)
  // The run's page-data fence (common/fence.h): hint_text, page_text and tab titles go between its lines. Empty: no
  // fence (a request not about a page).
  std::string data_fence;
  std::vector<std::string> secret_names;            // the model may type "<secret:NAME>" for these
  std::map<std::string, std::string> secret_hosts;  // NAME → the only hosts it may be typed on (said in words)
  std::vector<TabEntry> tabs;
  std::vector<std::string> upload_files;  // names (never contents) of the files --upload-dir offers
  int max_actions = 5;                    // the most an {"actions": [...]} list may hold (--max-actions)
  Json answer_schema;                     // --output-schema: the JSON Schema done's answer must fit; null: none
  int max_tokens = 0;  // a lower reply cap than the model's, what the budgets leave (Client::fit); 0: the model's
};

enum class PromptStyle {
  JsonObject,  // answer with the action object
  PlainWords,  // --formalize-model: answer in words; a text model writes the object
};

// The request's text, laid out so that each step's request begins with the previous one's: providers cache
// a prompt's prefix and bill it at a fraction. The user message is a list of blocks: the run's instructions
// (objective, vocabulary, answer format: the same every step), one block per step already taken (the history
// only grows; see kFullHistory), then this step's page (address, hint list, tabs), then the image(s).
struct Prompt {
  std::string system;
  std::vector<std::string> blocks;
  // How many leading blocks are the same as in the previous step's request: all but the last.
  [[nodiscard]] std::size_t stable_blocks() const { return blocks.empty() ? 0 : blocks.size() - 1; }
  [[nodiscard]] std::string user() const;  // the blocks joined, as one text
};

// Steps past the last `full_history` are folded into one short line each ("3. {"click":"AB"} -> ok"), a
// chunk of `full_history` at a time: between full_history and 2*full_history - 1 steps stay in full, and the
// folded part, once written, stays the same until the next chunk folds, so the cached prefix survives.
inline constexpr int kFullHistory = 8;
Prompt build_prompt(const StepRequest& step, PromptStyle style, int full_history = kFullHistory);

// ---------------------------------------------------------------------------------------------------------------
// The client

// Anthropic: cache_control breakpoints on the system prompt and on the last block before this step's (the
// Anthropic API and proxies that speak it accept them). OpenAI: prompt_cache_key, sent only to api.openai.com
// in Auto (other OpenAI-compatible servers may refuse fields they do not know). OpenAI caches a stable prefix
// of 1,024 tokens or more on its own; the key keeps a run's requests on one cache.
enum class PromptCache { Auto, On, Off };
Result<PromptCache> parse_prompt_cache(std::string_view text);  // "auto" | "on" | "off"

struct ClientOptions {
  Provider provider = Provider::Auto;
  std::string base_url;  // empty: kOpenAIBaseUrl or kAnthropicBaseUrl
  std::string api_key;   // may be empty for local servers (Ollama, llama.cpp)
  std::string model = std::string(kDefaultModel);
  // The visible reply's tokens. A model that reasons gets its catalogue's reasoning reserve on top (reasoning
  // counts against the same cap), so a short answer is never starved by the thinking before it.
  int max_tokens = 300;
  std::optional<double> temperature;  // unset: the server's default (not sent); dropped where the model refuses it
  // --effort: the reasoning effort (OpenAI reasoning_effort, Anthropic output_config.effort); empty: the
  // catalogue's, the lowest the model takes that still answers. Checked against the values the model accepts.
  std::string effort;
  Detail detail = Detail::Auto;
  Structured structured = Structured::Auto;
  std::string repair_model;     // empty: the same model
  std::string formalize_model;  // empty: off; else the vision model answers in words and this model formalizes
  ImageOptions image;
  Milliseconds connect_timeout{10'000};
  Milliseconds total_timeout{120'000};
  // max_retries, backoff base (tests make it tiny), sleep and on_retry hooks.
  http::RetryPolicy retry;
  std::size_t max_response_bytes = std::size_t{8} * 1024 * 1024;
  std::optional<double> price_in;      // --price-in, USD per million tokens; overrides the table
  std::optional<double> price_out;     // --price-out
  std::optional<double> price_cached;  // --price-cached; unset: the table's, else the input price
  PromptCache prompt_cache = PromptCache::Auto;
  // OpenAI's prompt_cache_key: requests with the same key are routed to the same cache. One per run.
  std::string cache_key;
  int full_history = kFullHistory;  // --history
  // --dialect: the family (or dialect) a model the catalogue does not know speaks; empty: the catalogue's, else
  // vimgpt's own.
  std::string dialect;
  InteractionMode mode = InteractionMode::Labels;  // --mode
};

struct Timings {
  Milliseconds prepare{0};  // scaling, encoding, request building
  Milliseconds model{0};    // waiting for the provider, retries and repair calls included
  Milliseconds total{0};
};

struct Decision {
  Json action;  // the action object, validated as an object; see unknown_keys
  // What the provider asks a person to confirm before the action runs (OpenAI's pending safety checks, in its
  // words): the agent asks, and with nobody there the run ends needing input.
  std::vector<std::string> safety_checks;
  std::string raw_reply;         // the model's reply text (the vision model's words with formalize)
  std::string formalized_reply;  // formalize mode: the text model's reply
  std::string repair_reply;      // the repair call's reply, when one was made
  // What an open family thought before it acted (reasoning_content, <think>, or its text before the action).
  std::string thoughts;
  Repair repair = Repair::None;
  std::vector<std::string> fixes;  // local repairs applied
  std::vector<std::string> unknown_keys;
  std::string finish_reason;  // "stop", "length" (cut by max_tokens), "tool_use", ...
  Usage usage;                // this decision only
  Timings timings;
  int estimated_image_tokens = 0;
  // Safe to record: provider, model, base URL, detail, structured, image sizes/MIME/bytes, attempts. Never the
  // API key, never image bytes.
  Json request_metadata;
};

// What would be sent, without sending it: for recordings, dry runs and the benchmark.
struct PreparedRequest {
  std::string url;
  std::string body;
  std::vector<EncodedImage> images;  // as sent
  int estimated_image_tokens = 0;
};

// --verify: a run's answer checked, before the run ends done, by a request of its own: the objective, the answer,
// the steps taken and the frame the answer was given on; the model says whether the answer holds, and why.
struct AnswerCheck {
  std::string objective;
  Json answer;
  std::vector<HistoryEntry> steps;
  std::string url;
  EncodedImage frame;
  std::string data_fence;  // the run's (StepRequest::data_fence): what came of the steps carries page text
};
struct CheckVerdict {
  bool passed = false;
  std::string reason;
};
// The check's words (check.cpp), and its reply read: {"pass": true|false, "reason": "..."}; Parse when it is not.
Prompt check_prompt(const AnswerCheck& check);
Result<CheckVerdict> read_check(std::string_view reply);

class Client {
 public:
  // InvalidArgument for unusable options (no model, bad base URL, no API key for a hosted provider).
  static Result<std::unique_ptr<Client>> create(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // One step: prepare the image(s), ask the model, parse (repairing if needed) the reply. Errors: Http
  // (actionable: key refused, model not found), Network, Timeout, Parse ("unparseable reply: <raw text>").
  Result<Decision> decide(const StepRequest& step);
  Result<PreparedRequest> prepare(const StepRequest& step) const;
  // --verify: one check of an answer (its usage counted with the rest).
  Result<CheckVerdict> check_answer(const AnswerCheck& check);

  // Summed over every call this client made (repair and formalize calls included).
  [[nodiscard]] Usage usage() const;
  // The most this step's request could cost, before it is sent: its text (the request's body, images left out)
  // counted with the model's own tokenizer (the catalogue's; a token per 3 bytes for a model whose tokenizer vimgpt
  // does not carry, more than any real tokenizer gives for English and JSON) and its images by the provider's
  // published rule, all at the uncached price, plus max_tokens of completion. For --max-cost and --max-tokens-total.
  [[nodiscard]] Result<Usage> estimate(const StepRequest& step) const;
  // This step's request fitted to what is left of the budgets: sent whole when its estimate fits; else with the
  // largest reply cap that does, down to the reply's own room (--max-tokens: only the reasoning allowance gives way);
  // else not at all. --max-cost and --max-tokens-total let through every request they can pay for, never one more.
  [[nodiscard]] Result<FittedRequest> fit(const StepRequest& step, const BudgetLeft& left) const;
  [[nodiscard]] const ClientOptions& options() const;
  // Whether structured output is in use now (auto turns it off for the session after a rejection that names it).
  [[nodiscard]] bool structured_active() const;
  // The provider whose rules the requests follow (Auto resolved).
  [[nodiscard]] Provider provider() const;
  // The catalogue's entry for the model; nullptr when the model is not in it (safe defaults are used).
  [[nodiscard]] const ModelSpec* model_spec() const;
  // The open family's dialect the model speaks (its entry, or --dialect); nullptr: vimgpt's labelled JSON.
  [[nodiscard]] const Dialect* dialect() const;
  // What the person should know before the run: an unknown model (no price: --price-in/--price-out), a model
  // that is ending, a flag the model refuses (and which was dropped). One line each.
  [[nodiscard]] std::vector<std::string> notices() const;
  // The HTTP status of the provider's last response (0: none came, e.g. the server could not be reached).
  [[nodiscard]] long last_status() const;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `vimgpt doctor`: one small request with a labelled frame, checked stage by stage, for a person setting a model
// up: where it failed and what to change.
struct CheckStage {
  enum class State { Passed, Failed, Skipped };
  std::string name;  // "configuration", "reached", "key accepted", "model found", "image accepted", ...
  State state = State::Passed;
  std::string detail;  // what was seen; on a failure, what to change
};
struct Checkup {
  std::vector<CheckStage> stages;
  std::vector<std::string> notices;  // the client's (unknown model, ending model, a refused flag)
  std::optional<Decision> decision;  // when the model answered
  Milliseconds took{0};
  [[nodiscard]] bool passed() const;
};
// `expected` is the action the frame asks for; a different answer fails the last stage (the model may not see
// images, or not read the labels). An open family answers with a point: it passes when the point lands inside
// `target` (left, top, width, height in frame pixels).
struct TargetBox {
  double left = 0;
  double top = 0;
  double width = 0;
  double height = 0;
};
// `marks`: the marked elements' list a family that reads numbered marks is given with the frame (Dialect::reads_marks).
Checkup check_model(const ClientOptions& options, const EncodedImage& frame, const std::string& objective,
                    const Json& expected, const TargetBox& target = {}, const std::string& marks = {});

// `vimgpt ask IMAGE "objective"`: one saved screenshot, one decision, no browser.
Result<Decision> ask(const ClientOptions& options, const EncodedImage& image, const std::string& objective);

}  // namespace vimgpt::vision
