// The vision client: one decision per step. Prepares the images, sends one request (with retries), falls back
// from structured output when a server rejects it, parses and repairs the reply (one repair call at most), and
// keeps the session's token and cost totals.
#include <atomic>
#include <mutex>
#include <random>

#include "vision/provider.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

using Clock = std::chrono::steady_clock;

Milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<Milliseconds>(Clock::now() - start);
}

constexpr std::string_view kDefaultOpenAI = "https://api.openai.com/v1";
constexpr std::string_view kDefaultAnthropic = "https://api.anthropic.com/v1";

// A step sends the labelled frame and at most a few more (the clean one, or earlier steps'); text mode none.
constexpr std::size_t kMaxImages = 8;

Status check_image_count(const StepRequest& step) {
  if (step.images.size() > kMaxImages) {
    return fail(ErrorKind::InvalidArgument, "a step takes at most " + std::to_string(kMaxImages) + " images, not " +
                                                std::to_string(step.images.size()));
  }
  return ok();
}

std::string random_cache_key() {
  std::random_device device;
  char key[32];
  std::snprintf(key, sizeof key, "vimgpt-%08x%08x", device(), device());
  return key;
}

constexpr std::string_view kRepairSystem =
    "You fix malformed replies. You answer with one JSON object and nothing else: no code block, no prose.";
constexpr std::string_view kFormalizeSystem =
    "You turn an instruction for a web browser into one JSON action object. You answer with the JSON object and "
    "nothing else: no code block, no prose.";

}  // namespace

struct Client::Impl {
  ClientOptions options;
  Provider provider = Provider::OpenAI;
  http::Client http;
  // Auto mode: a server that rejected structured output once is not asked again in this session.
  std::atomic<bool> structured_rejected{false};
  mutable std::mutex usage_mutex;
  Usage usage;

  [[nodiscard]] bool structured_now() const {
    return options.structured == Structured::On ||
           (options.structured == Structured::Auto && !structured_rejected.load());
  }

  // The price of `model`'s tokens: the flags first, then the built-in table; nullopt when neither knows it.
  [[nodiscard]] std::optional<Price> price_of(const std::string& model) const {
    const auto table = default_price(model);
    if (!(options.price_in || table) || !(options.price_out || table)) return std::nullopt;
    Price price;
    price.input_per_million = options.price_in.value_or(table ? table->input_per_million : 0);
    price.output_per_million = options.price_out.value_or(table ? table->output_per_million : 0);
    // An input price of one's own without a cached one: cached tokens at that price (no discount assumed).
    const bool table_in = table && !options.price_in;
    price.cached_input_per_million =
        options.price_cached.value_or(table_in ? table->cached_input_per_million : price.input_per_million);
    price.cache_write_per_million = table_in ? table->cache_write_per_million : price.input_per_million;
    return price;
  }

  [[nodiscard]] Usage usage_of(const std::string& model, const detail::ChatReply& reply) const {
    Usage used;
    used.prompt_tokens = reply.prompt_tokens;
    used.completion_tokens = reply.completion_tokens;
    used.cached_tokens = reply.cached_tokens;
    used.cache_write_tokens = reply.cache_write_tokens;
    used.requests = 1;
    const auto price = price_of(model);
    used.cost_known = price.has_value();
    if (price) used.cost_usd = cost_of(used, *price);
    return used;
  }

  [[nodiscard]] bool cache_breakpoints() const {
    return provider == Provider::Anthropic && options.prompt_cache != PromptCache::Off;
  }
  [[nodiscard]] bool cache_key_sent() const {
    return provider == Provider::OpenAI &&
           (options.prompt_cache == PromptCache::On ||
            (options.prompt_cache == PromptCache::Auto && options.base_url == kDefaultOpenAI));
  }

  // A step's request (cached prefix marked), or with `step` false a one-off text call (repair, formalize).
  [[nodiscard]] detail::ChatRequest chat(std::string model, Prompt prompt, const std::vector<EncodedImage>* images,
                                         bool structured, bool step = false) const {
    detail::ChatRequest request;
    request.provider = provider;
    request.base_url = options.base_url;
    request.api_key = options.api_key;
    request.model = std::move(model);
    request.system = std::move(prompt.system);
    request.stable_blocks = prompt.stable_blocks();
    request.blocks = std::move(prompt.blocks);
    request.images = images;
    request.detail = options.detail;
    request.max_tokens = options.max_tokens;
    request.temperature = options.temperature;
    request.structured = structured;
    request.connect_timeout = options.connect_timeout;
    request.total_timeout = options.total_timeout;
    request.max_response_bytes = options.max_response_bytes;
    if (step) {
      request.cache_breakpoints = cache_breakpoints();
      if (cache_key_sent()) request.cache_key = options.cache_key;
    }
    return request;
  }

  [[nodiscard]] Prompt step_prompt(const StepRequest& step) const {
    const bool formalize = !options.formalize_model.empty();
    return build_prompt(step, formalize ? PromptStyle::PlainWords : PromptStyle::JsonObject, options.full_history);
  }

  // One model call with retries and the structured-output fallback; adds its usage to `decision`.
  Result<detail::ChatReply> call(detail::ChatRequest request, Decision& decision) {
    int attempts = 0;
    http::HttpRequest http_request = detail::build_request(request);
    decision.request_metadata["request_bytes"] =
        decision.request_metadata.value("request_bytes", std::size_t{0}) + http_request.body.size();
    auto response = http::perform_with_retry(http, http_request, options.retry, &attempts);
    decision.request_metadata["attempts"] = decision.request_metadata.value("attempts", 0) + attempts;
    if (!response) return response.failure();
    if (response->status == 400 && request.structured && options.structured == Structured::Auto) {
      // Servers that do not know response_format (or tools) answer 400; ask again without it, and remember.
      structured_rejected = true;
      decision.request_metadata["structured_fallback"] = true;
      request.structured = false;
      http_request = detail::build_request(request);
      response = http::perform_with_retry(http, http_request, options.retry, &attempts);
      decision.request_metadata["attempts"] = decision.request_metadata.value("attempts", 0) + attempts;
      if (!response) return response.failure();
    }
    VIMGPT_TRY_VOID(http::check_status(*response, http_request, "model " + request.model + " at " + options.base_url));
    auto reply = provider == Provider::Anthropic ? detail::parse_anthropic_response(*response)
                                                 : detail::parse_openai_response(*response, request.structured);
    if (!reply) return reply;
    decision.usage += usage_of(request.model, *reply);
    return reply;
  }

  Result<ParsedReply> parse(const detail::ChatReply& reply) const {
    auto parsed = parse_reply(reply.text);
    if (parsed && reply.structured) parsed->action = structured_action(std::move(parsed->action));
    return parsed;
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::create(ClientOptions options) {
  if (options.model.empty()) return fail(ErrorKind::InvalidArgument, "no model given: pass --model");
  const Provider provider = resolve_provider(options.provider, options.model);
  if (options.base_url.empty()) {
    options.base_url = provider == Provider::Anthropic ? kDefaultAnthropic : kDefaultOpenAI;
  }
  while (options.base_url.ends_with('/')) options.base_url.pop_back();
  if (!options.base_url.starts_with("http://") && !options.base_url.starts_with("https://")) {
    return fail(ErrorKind::InvalidArgument,
                "the base URL must start with http:// or https:// (e.g. http://localhost:11434/v1), not \"" +
                    options.base_url + "\"");
  }
  const bool hosted = options.base_url == kDefaultOpenAI || options.base_url == kDefaultAnthropic;
  if (hosted && options.api_key.empty()) {
    return fail(ErrorKind::InvalidArgument, provider == Provider::Anthropic
                                                ? "no API key for Anthropic: set ANTHROPIC_API_KEY or pass --api-key"
                                                : "no API key for OpenAI: set OPENAI_API_KEY or pass --api-key");
  }
  if (options.max_tokens <= 0) return fail(ErrorKind::InvalidArgument, "--max-tokens must be positive");
  if (options.image.width < 0) return fail(ErrorKind::InvalidArgument, "--img-res must be positive");
  if (options.image.jpeg_quality < 1 || options.image.jpeg_quality > 100) {
    return fail(ErrorKind::InvalidArgument, "--jpeg-quality must be between 1 and 100");
  }
  if (options.full_history < 1) return fail(ErrorKind::InvalidArgument, "--history must be at least 1");
  if (options.cache_key.empty()) options.cache_key = random_cache_key();
  auto impl = std::make_unique<Impl>();
  impl->provider = provider;
  impl->options = std::move(options);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const ClientOptions& Client::options() const {
  return impl_->options;
}

bool Client::structured_active() const {
  return impl_->structured_now();
}

Usage Client::usage() const {
  std::scoped_lock lock(impl_->usage_mutex);
  return impl_->usage;
}

Result<PreparedRequest> Client::prepare(const StepRequest& step) const {
  VIMGPT_TRY_VOID(check_image_count(step));
  PreparedRequest prepared;
  for (const auto& image : step.images) {
    VIMGPT_TRY(EncodedImage ready, prepare_image(image, impl_->options.image));
    prepared.estimated_image_tokens +=
        estimate_image_tokens(impl_->provider, ready.width, ready.height, impl_->options.detail);
    prepared.images.push_back(std::move(ready));
  }
  const bool structured = impl_->options.formalize_model.empty() && impl_->structured_now();
  const auto request = impl_->chat(impl_->options.model, impl_->step_prompt(step), &prepared.images, structured, true);
  http::HttpRequest http_request = detail::build_request(request);
  prepared.url = std::move(http_request.url);
  prepared.body = std::move(http_request.body);
  return prepared;
}

Result<Usage> Client::estimate(const StepRequest& step) const {
  VIMGPT_TRY(PreparedRequest prepared, prepare(step));
  std::size_t text_bytes = prepared.body.size();
  for (const auto& image : prepared.images) text_bytes -= std::min(text_bytes, (image.bytes.size() + 2) / 3 * 4);
  Usage estimate;
  estimate.requests = 1;
  estimate.prompt_tokens = static_cast<std::int64_t>(text_bytes / 3) + prepared.estimated_image_tokens;
  estimate.completion_tokens = impl_->options.max_tokens;
  const auto price = impl_->price_of(impl_->options.model);
  estimate.cost_known = price.has_value();
  if (price) estimate.cost_usd = cost_of(estimate, *price);
  return estimate;
}

Result<Decision> Client::decide(const StepRequest& step) {
  const auto start = Clock::now();
  Impl& self = *impl_;
  const ClientOptions& options = self.options;
  const bool formalize = !options.formalize_model.empty();

  Decision decision;
  std::vector<EncodedImage> images;
  VIMGPT_TRY_VOID(check_image_count(step));
  Json image_metadata = Json::array();
  for (const auto& image : step.images) {
    VIMGPT_TRY(EncodedImage ready, prepare_image(image, options.image));
    decision.estimated_image_tokens += estimate_image_tokens(self.provider, ready.width, ready.height, options.detail);
    image_metadata.push_back(
        {{"mime", ready.mime()}, {"width", ready.width}, {"height", ready.height}, {"bytes", ready.bytes.size()}});
    images.push_back(std::move(ready));
  }
  const bool structured = !formalize && self.structured_now();
  decision.request_metadata = {{"provider", to_string(self.provider)},
                               {"model", options.model},
                               {"base_url", options.base_url},
                               {"detail", to_string(options.detail)},
                               {"structured", structured},
                               {"max_tokens", options.max_tokens},
                               {"images", std::move(image_metadata)},
                               {"estimated_image_tokens", decision.estimated_image_tokens}};
  if (options.temperature) decision.request_metadata["temperature"] = *options.temperature;
  if (formalize) decision.request_metadata["formalize_model"] = options.formalize_model;
  if (self.cache_key_sent()) decision.request_metadata["prompt_cache_key"] = options.cache_key;
  auto request = self.chat(options.model, self.step_prompt(step), &images, structured, true);
  decision.timings.prepare = since(start);

  const auto model_start = Clock::now();
  // Every call made is paid for, whether or not the decision succeeds: count it on every way out.
  struct UsageGuard {
    Impl& self;
    const Usage& used;
    UsageGuard(Impl& owner, const Usage& counted) : self(owner), used(counted) {}
    UsageGuard(const UsageGuard&) = delete;
    UsageGuard& operator=(const UsageGuard&) = delete;
    ~UsageGuard() {
      std::scoped_lock lock(self.usage_mutex);
      self.usage += used;
    }
  } guard{self, decision.usage};

  VIMGPT_TRY(detail::ChatReply reply, self.call(std::move(request), decision));
  decision.raw_reply = reply.text;
  decision.finish_reason = reply.finish_reason;

  if (formalize) {
    // The vision model said what to do in words; a text model writes it as the action object.
    Prompt prompt{std::string(kFormalizeSystem),
                  {"Instruction: " + reply.text + "\n\n" + vocabulary_text() +
                   "\nIf the instruction says the task is done, answer {\"done\": <the answer or true>}."}};
    auto formal = self.chat(options.formalize_model, std::move(prompt), nullptr, self.structured_now());
    VIMGPT_TRY(reply, self.call(std::move(formal), decision));
    decision.formalized_reply = reply.text;
  }

  auto parsed = self.parse(reply);
  if (!parsed) {
    // As the original: one more call asking the model to return just the JSON.
    const std::string model = options.repair_model.empty() ? options.model : options.repair_model;
    Prompt prompt{std::string(kRepairSystem),
                  {"This reply was meant to be a single JSON object describing a browser action. " + vocabulary_text() +
                   "\nReturn only that JSON object.\n\nReply:\n" + reply.text}};
    decision.request_metadata["repair_model"] = model;
    auto repaired = self.call(self.chat(model, std::move(prompt), nullptr, self.structured_now()), decision);
    if (repaired) {
      decision.repair_reply = repaired->text;
      parsed = self.parse(*repaired);
      if (parsed) parsed->repair = Repair::Model;
    }
    if (!parsed) {
      const std::string& raw = reply.text;
      return fail(ErrorKind::Parse, "unparseable reply from model " + options.model +
                                        (decision.finish_reason == "length" ? " (cut off by --max-tokens)" : "") +
                                        ": " + raw.substr(0, 2000));
    }
  }
  decision.action = std::move(parsed->action);
  decision.repair = parsed->repair;
  decision.fixes = std::move(parsed->fixes);
  decision.unknown_keys = unknown_keys(decision.action);
  decision.timings.model = since(model_start);
  decision.timings.total = since(start);
  return decision;
}

Result<Decision> ask(const ClientOptions& options, const EncodedImage& image, const std::string& objective) {
  VIMGPT_TRY(auto client, Client::create(options));
  StepRequest step;
  step.objective = objective;
  step.images.push_back(image);
  return client->decide(step);
}

}  // namespace vimgpt::vision
