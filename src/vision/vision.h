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

Result<EncodedImage> load_image_file(const std::string& path);

Result<Pixels> decode_image(const EncodedImage& image);
// Aspect kept; returns the input unchanged when it already has that width.
Result<Pixels> scale_to_width(const Pixels& pixels, int width);
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

// ---------------------------------------------------------------------------------------------------------------
// Providers, detail, token and cost estimates

enum class Provider { Auto, OpenAI, Anthropic };
enum class Detail { Auto, Low, High };
enum class Structured { Auto, On, Off };
std::string_view to_string(Provider provider);
std::string_view to_string(Detail detail);
std::string_view to_string(Structured structured);
Result<Provider> parse_provider(std::string_view text);      // "auto" | "openai" | "anthropic"
Result<Detail> parse_detail(std::string_view text);          // "auto" | "low" | "high"
Result<Structured> parse_structured(std::string_view text);  // "auto" | "on" | "off"

// Auto becomes Anthropic for "claude-*" models, OpenAI-compatible otherwise.
Provider resolve_provider(Provider provider, std::string_view model);

// Each provider's published rule. OpenAI: low = 85; high (and auto, counted as high) = fit in 2048x2048, shortest
// side down to 768, then 170 per 512-px tile + 85. Anthropic: long edge down to 1568, then width*height/750.
int estimate_image_tokens(Provider provider, int width, int height, Detail detail);

struct Price {
  double input_per_million = 0;   // USD per million prompt tokens
  double output_per_million = 0;  // USD per million completion tokens
  // Prompt tokens read from the provider's cache, and (Anthropic) written to it: OpenAI bills cached tokens at
  // 10-50% of the input price by model, Anthropic reads at 10% and writes at 125%.
  double cached_input_per_million = 0;
  double cache_write_per_million = 0;
};
// Built-in list price by model-name prefix (longest match); nullopt when the model is not in the table.
std::optional<Price> default_price(std::string_view model);

struct Usage {
  std::int64_t prompt_tokens = 0;  // every input token, cached or not (Anthropic's three counts summed)
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;       // of prompt_tokens: read from the provider's prompt cache
  std::int64_t cache_write_tokens = 0;  // of prompt_tokens: written to it (Anthropic)
  int requests = 0;
  double cost_usd = 0;  // 0 with cost_known false when no price is known for a model used
  bool cost_known = true;

  Usage& operator+=(const Usage& other);
  [[nodiscard]] std::int64_t total_tokens() const { return prompt_tokens + completion_tokens; }
};

// {"prompt_tokens", "cached_tokens", "cache_write_tokens", "completion_tokens", "requests", "cost_usd"}, the
// cost left out when it is not known: for recordings and --json events.
Json to_json(const Usage& usage);

// What `usage` costs at `price`: uncached prompt tokens at the input price, cached ones at the cached price,
// cache writes at the write price, completion at the output price.
double cost_of(const Usage& usage, const Price& price);

// ---------------------------------------------------------------------------------------------------------------
// Actions: the vocabulary, its JSON schema, and reply parsing with repair

// Keys the agent accepts: navigate, click, type, enter, done, scroll, back, key, select, option, upload, file,
// tab, close_tab, ask, wait, click_at.
const std::vector<std::string>& action_keys();
// "Allowed keys: navigate (URL string), ...": the vocabulary in one line, for the repair and formalize calls.
std::string vocabulary_text();
enum class SchemaStyle {
  Strict,   // OpenAI strict structured output: every key required, unused ones null, no extra keys
  Relaxed,  // Anthropic tool input: optional keys
};
const Json& action_schema(SchemaStyle style);
// A structured reply lists every key, unused ones null: the action is what is left. "done" is false until
// the task is complete, so a null "done" stays only when nothing else was chosen ({"done": null} alone).
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
  std::vector<HistoryEntry> history;
  std::string current_url;
  std::string hint_text;  // --observe hybrid or text: one line per label (label, role, name, href); empty: none
  std::string page_text;  // --observe text: the page's visible text (no image is sent)
  std::vector<std::string> secret_names;  // the model may type "<secret:NAME>" for these
  std::vector<TabEntry> tabs;
  std::vector<std::string> upload_files;  // names (never contents) of the files --upload-dir offers
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
  std::string base_url;  // empty: https://api.openai.com/v1 or https://api.anthropic.com/v1
  std::string api_key;   // may be empty for local servers (Ollama, llama.cpp)
  std::string model = "gpt-4o";
  int max_tokens = 300;
  std::optional<double> temperature;  // unset: the server's default (not sent)
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
};

struct Timings {
  Milliseconds prepare{0};  // scaling, encoding, request building
  Milliseconds model{0};    // waiting for the provider, retries and repair calls included
  Milliseconds total{0};
};

struct Decision {
  Json action;                   // the action object, validated as an object; see unknown_keys
  std::string raw_reply;         // the model's reply text (the vision model's words with formalize)
  std::string formalized_reply;  // formalize mode: the text model's reply
  std::string repair_reply;      // the repair call's reply, when one was made
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

  // Summed over every call this client made (repair and formalize calls included).
  [[nodiscard]] Usage usage() const;
  // The most this step's request could cost, before it is sent: prompt tokens estimated from the text
  // (a token per 3 bytes, more than any real tokenizer gives for English and JSON) and the images' published
  // rule, all at the uncached price, plus max_tokens of completion. For --max-cost and --max-tokens-total.
  [[nodiscard]] Result<Usage> estimate(const StepRequest& step) const;
  [[nodiscard]] const ClientOptions& options() const;
  // Whether structured output is in use now (auto turns it off for the session after a rejection).
  [[nodiscard]] bool structured_active() const;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `vimgpt ask IMAGE "objective"`: one saved screenshot, one decision, no browser.
Result<Decision> ask(const ClientOptions& options, const EncodedImage& image, const std::string& objective);

}  // namespace vimgpt::vision
