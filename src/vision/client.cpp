// The vision client: one decision per step. Prepares the images (within the provider's limits), sends one request
// with the fields the model accepts (rules.cpp), retries what the provider says is worth it, leaves out a field
// only when an error names it, parses and repairs the reply (one repair call at most), and keeps the session's
// token and cost totals.
#include <atomic>
#include <mutex>
#include <set>

#include "common/text.h"
#include "vision/dialect.h"
#include "vision/provider.h"
#include "vision/tokenizer/tokenizer.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

using Clock = std::chrono::steady_clock;

Milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<Milliseconds>(Clock::now() - start);
}

// A step sends the labelled frame and at most a few more (the clean one, or earlier steps'); text mode none.
constexpr std::size_t kMaxImages = 8;
// A reply cut off while the model was still reasoning is asked again once, with this much more room.
constexpr int kCutOffRetryFactor = 2;

Status check_image_count(const StepRequest& step) {
  if (step.images.size() > kMaxImages) {
    return fail(ErrorKind::InvalidArgument, "a step takes at most " + std::to_string(kMaxImages) + " images, not " +
                                                std::to_string(step.images.size()));
  }
  return ok();
}

std::string random_cache_key() {
  return "vimgpt-" + random_hex(2);
}

constexpr std::string_view kRepairSystem =
    "You fix malformed replies. You answer with one JSON object and nothing else: no code block, no prose.";
constexpr std::string_view kFormalizeSystem =
    "You turn an instruction for a web browser into one JSON action object. You answer with the JSON object and "
    "nothing else: no code block, no prose.";

}  // namespace

struct Client::Impl {
  ClientOptions options;
  detail::RequestRules rules;
  // An open family's way of speaking (the catalogue's, or --dialect's); unset: vimgpt's labelled JSON.
  std::optional<Dialect> dialect;
  std::optional<ComputerTool> computer_tool;  // --mode computer-use: the provider's tool the model takes
  http::Client http;
  // Auto mode: a server that refused structured output by name is not asked again in this session.
  std::atomic<bool> structured_rejected{false};
  std::atomic<long> last_status{0};
  mutable std::mutex mutex;  // guards what follows
  Usage usage;
  std::vector<std::string> notices;
  std::set<std::string> refused;  // fields a server refused by name: left out from then on

  [[nodiscard]] bool structured_now() const {
    return rules.structured != StructuredMethod::None &&
           (options.structured == Structured::On ||
            (options.structured == Structured::Auto && !structured_rejected.load()));
  }

  [[nodiscard]] bool cache_breakpoints() const {
    return rules.provider == Provider::Anthropic && options.prompt_cache != PromptCache::Off;
  }
  [[nodiscard]] bool cache_key_sent() const {
    return rules.provider != Provider::Anthropic &&
           (options.prompt_cache == PromptCache::On ||
            (options.prompt_cache == PromptCache::Auto && options.base_url == kOpenAIBaseUrl));
  }
  // A family that thinks before it acts gets its room, whatever --max-tokens says of vimgpt's short replies.
  [[nodiscard]] int reply_cap() const {
    return dialect ? std::max(options.max_tokens, dialect->reply_tokens) : options.max_tokens;
  }
  // The reply's room and the reasoning allowance; a step's budget may lower it (StepRequest::max_tokens).
  [[nodiscard]] int token_cap(const StepRequest* step = nullptr) const {
    const int cap = reply_cap() + rules.reasoning_reserve;
    return step != nullptr && step->max_tokens > 0 ? std::min(cap, step->max_tokens) : cap;
  }

  // A step's request (cached prefix marked, a typed answer's schema carried where it can be), or without
  // `step` a one-off text call (repair, formalize).
  [[nodiscard]] detail::ChatRequest chat(std::string model, Prompt prompt, const std::vector<EncodedImage>* images,
                                         bool structured, const StepRequest* step = nullptr) const {
    detail::ChatRequest request;
    request.provider = rules.provider;
    request.api = rules.api;
    request.base_url = options.base_url;
    request.api_key = options.api_key;
    request.model = std::move(model);
    request.system = std::move(prompt.system);
    request.stable_blocks = prompt.stable_blocks();
    request.blocks = std::move(prompt.blocks);
    request.images = images;
    request.detail = options.detail;
    request.token_field = rules.token_field;
    request.max_tokens = token_cap(step);
    request.widen_when_starved = step == nullptr || step->max_tokens <= 0;
    request.effort = rules.effort;
    request.temperature = rules.temperature;
    request.thinking = rules.thinking;
    request.structured = structured ? rules.structured : StructuredMethod::None;
    request.connect_timeout = options.connect_timeout;
    request.total_timeout = options.total_timeout;
    request.max_response_bytes = options.max_response_bytes;
    if (step != nullptr) {
      request.cache_breakpoints = cache_breakpoints();
      if (cache_key_sent()) request.cache_key = options.cache_key;
      request.answer_schema = carried_answer_schema(step->answer_schema).value_or(Json());
    }
    std::scoped_lock lock(mutex);
    for (const auto& field : refused) detail::drop_field(request, field, true);
    return request;
  }

  [[nodiscard]] Prompt step_prompt(const StepRequest& step) const {
    const bool formalize = !options.formalize_model.empty();
    return build_prompt(step, formalize ? PromptStyle::PlainWords : PromptStyle::JsonObject, options.full_history);
  }

  // The frame as the model is sent it: at the chosen width and format, within the provider's limits.
  [[nodiscard]] Result<EncodedImage> ready_image(const EncodedImage& image, std::size_t count) const {
    ImageOptions wanted = options.image;
    if (dialect && dialect->resize.factor > 0) {
      // Sized so the family's server resizes nothing: the model's pixels are then the image's, exactly.
      const int width = wanted.width > 0 ? wanted.width : image.width;
      wanted.width = unchanged_width({image.width, image.height}, width, dialect->resize);
    }
    VIMGPT_TRY(EncodedImage ready, prepare_image(image, wanted));
    const ImageLimits limits = image_limits(rules.provider);
    const int edge =
        limits.many_images > 0 && static_cast<int>(count) > limits.many_images ? limits.max_edge_many : limits.max_edge;
    return fit_image(ready, edge, limits.max_base64_bytes);
  }

  // Whether this step's request shows a closer look (a computer tool's zoom) as the last of its images.
  [[nodiscard]] bool shows_closer_look(const StepRequest& step) const {
    return step.closer_look.has_value() && computer_tool.has_value() && !step.images.empty();
  }

  // The closer look within the provider's limits, after the frames: the zoom's result shows it instead of the frame.
  Status add_closer_look(const StepRequest& step, std::vector<EncodedImage>& images) const {
    if (!shows_closer_look(step)) return ok();
    const ImageLimits limits = image_limits(rules.provider);
    VIMGPT_TRY(EncodedImage ready, fit_image(*step.closer_look, limits.max_edge, limits.max_base64_bytes));
    images.push_back(std::move(ready));
    return ok();
  }

  // An open family's request: its conversation, its temperature, never a response_format.
  [[nodiscard]] detail::ChatRequest dialect_chat(const StepRequest& step,
                                                 const std::vector<EncodedImage>& images) const {
    const bool closer = shows_closer_look(step);
    std::vector<Size> sizes;  // the frames': a closer look is no screen of its own
    sizes.reserve(images.size());
    for (std::size_t i = 0; i + (closer ? 1 : 0) < images.size(); ++i)
      sizes.push_back({images[i].width, images[i].height});
    detail::ChatRequest request = chat(options.model, Prompt{}, &images, false, &step);
    request.turns = detail::dialect_turns(*dialect, step, sizes);
    if (closer && !request.turns.empty()) request.turns.back().image = static_cast<int>(images.size()) - 1;
    request.extra_fields = detail::dialect_request_fields(*dialect);
    if (computer_tool && !sizes.empty()) detail::add_computer_tool(request, *computer_tool, sizes.back());
    if (!request.temperature && dialect->temperature) request.temperature = dialect->temperature;
    return request;
  }

  // What a call cost, added to the client's total: every call made is paid for, whether or not its reply is used.
  void count(const Usage& used) {
    std::scoped_lock lock(mutex);
    usage += used;
  }

  void note(std::string notice) {
    std::scoped_lock lock(mutex);
    notices.push_back(std::move(notice));
  }

  // A server refused `field` by name: left out of this and every later request, and the person told.
  bool leave_out(detail::ChatRequest& request, const std::string& field, Decision& decision) {
    const bool may_drop_structure = options.structured == Structured::Auto;
    if (!detail::drop_field(request, field, may_drop_structure)) return false;
    if (field == "response_format") {
      structured_rejected = true;
      decision.request_metadata["structured_fallback"] = true;
    }
    decision.request_metadata["refused_fields"].push_back(field);
    {
      std::scoped_lock lock(mutex);
      refused.insert(field);
    }
    note("the server refused " + field + " for model " + request.model + ": it is left out from now on" +
         (rules.spec != nullptr
              ? " (vimgpt's catalogue of " + std::string(catalogue_read_on()) + " may be out of date: vimgpt models)"
              : std::string()) +
         ".");
    return true;
  }

  // One model call: retries as the provider says, a field refused by name left out, and one more try with more
  // room when reasoning used the whole cap before any answer. Adds its usage to `decision`.
  Result<detail::ChatReply> call(detail::ChatRequest request, Decision& decision) {
    http::RetryPolicy retry = options.retry;
    retry.retry_if = detail::should_retry;
    bool widened = false;
    while (true) {
      int attempts = 0;
      const http::HttpRequest http_request = detail::build_request(request);
      decision.request_metadata["request_bytes"] =
          decision.request_metadata.value("request_bytes", std::size_t{0}) + http_request.body.size();
      auto response = http::perform_with_retry(http, http_request, retry, &attempts);
      decision.request_metadata["attempts"] = decision.request_metadata.value("attempts", 0) + attempts;
      last_status = response ? response->status : 0;
      if (!response) return response.failure();
      if (!response->ok()) {
        const std::string field = detail::refused_field(detail::read_error(*response), rules.provider);
        if (!field.empty() && leave_out(request, field, decision)) continue;
        return fail(detail::provider_failure(*response, http_request,
                                             "model " + request.model + " at " + options.base_url, rules.provider));
      }
      auto reply = detail::parse_reply(request, *response);
      if (!reply) return reply;
      decision.usage += detail::usage_of(*reply, detail::price_for(options, request.model));
      const bool starved =
          reply->finish_reason == "length" && reply->text.find_first_not_of(" \n") == std::string::npos;
      if (!starved) return reply;
      const std::string spent = std::to_string(reply->completion_tokens) + " tokens (" +
                                std::to_string(reply->reasoning_tokens) + " reasoning) of its " +
                                std::to_string(request.max_tokens) + "-token cap";
      if (!request.widen_when_starved) {
        return fail(ErrorKind::BudgetSpent,
                    "model " + request.model + " spent " + spent + ", all the budgets left, before answering");
      }
      if (widened) {
        return fail(ErrorKind::Parse, "model " + request.model + " spent " + spent +
                                          " before answering, twice: raise --max-tokens or lower --effort");
      }
      // Billed either way; a step lost costs more than a step asked again with room for its reasoning.
      widened = true;
      request.max_tokens *= kCutOffRetryFactor;
      decision.request_metadata["widened_cap"] = request.max_tokens;
      note("model " + request.model + " spent " + spent + " before answering: asked again with " +
           std::to_string(request.max_tokens) + " (raise --max-tokens to keep it so).");
    }
  }

  // An open family's reply read in its dialect (points into frame pixels); a reply in no form it knows is asked
  // for once more in that form, as vimgpt's own replies are.
  Result<Decision> finish_dialect(const StepRequest& step, const std::vector<EncodedImage>& images,
                                  const detail::ChatReply& reply, Decision decision, Clock::time_point model_start,
                                  Clock::time_point start) {
    if (images.empty() || step.images.empty()) {
      return fail(ErrorKind::InvalidArgument, "the " + std::string(to_string(dialect->kind)) +
                                                  " dialect reads points on a screenshot: drop --observe text");
    }
    const EncodedImage& sent = images[step.images.size() - 1];  // the frame as sent (a closer look comes after it)
    const detail::PointFrame frames{{sent.width, sent.height}, {step.images.back().width, step.images.back().height}};
    auto read = detail::read_dialect_reply(*dialect, reply.text, reply.reasoning, frames);
    // A provider's tool loop has no form to ask for again: a call it could not read is its server's fault.
    if (!read && !computer_tool) {
      Prompt prompt{"You are a GUI agent. You rewrite your last reply in the form your instructions require.",
                    {detail::dialect_repair_prompt(*dialect, reply.text)}};
      auto repaired = call(chat(options.model, std::move(prompt), nullptr, false), decision);
      if (repaired) {
        decision.repair_reply = repaired->text;
        read = detail::read_dialect_reply(*dialect, repaired->text, repaired->reasoning, frames);
        if (read) decision.repair = Repair::Model;
      }
    }
    if (!read) {
      return fail(ErrorKind::Parse, "unreadable " + std::string(to_string(dialect->kind)) + " reply from model " +
                                        options.model +
                                        (decision.finish_reason == "length" ? " (cut off by --max-tokens)" : "") +
                                        ": " + read.error().message + ": " + reply.text.substr(0, 2000));
    }
    decision.action = std::move(read->action);
    decision.thoughts = std::move(read->thoughts);
    if (computer_tool) decision.safety_checks = detail::pending_safety_checks(reply.text);
    // {"unsupported": why} is the dialect's own step error (agent's parse_action reads it), and {"zoom": region} a
    // computer tool's closer look, which vimgpt's own vocabulary does not offer: neither is an unknown key.
    if (!decision.action.contains("unsupported") && !decision.action.contains("zoom")) {
      decision.unknown_keys = unknown_keys(decision.action);
    }
    decision.timings.model = since(model_start);
    decision.timings.total = since(start);
    return decision;
  }

  Result<ParsedReply> parse(const detail::ChatReply& reply) const {
    // A reply in the schema's own form is taken as it is: unwrapping it is no repair.
    if (reply.structured) {
      Json strict = Json::parse(reply.text, nullptr, false);
      if (strict.is_object()) {
        Json action = structured_action(std::move(strict));
        if (!action.empty() && unknown_keys(action).empty()) return ParsedReply{std::move(action), Repair::None, {}};
      }
    }
    auto parsed = parse_reply(reply.text);
    if (parsed && reply.structured) parsed->action = structured_action(std::move(parsed->action));
    return parsed;
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::create(ClientOptions options) {
  if (options.model.empty()) return fail(ErrorKind::InvalidArgument, "no model given: pass --model");
  while (options.base_url.ends_with('/')) options.base_url.pop_back();
  const Provider provider = resolve_provider(options.provider, options.model, options.base_url);
  if (options.base_url.empty()) {
    options.base_url = provider == Provider::Anthropic ? kAnthropicBaseUrl
                       : provider == Provider::Gemini  ? kGeminiBaseUrl
                                                       : kOpenAIBaseUrl;
  }
  if (!options.base_url.starts_with("http://") && !options.base_url.starts_with("https://")) {
    return fail(ErrorKind::InvalidArgument,
                "the base URL must start with http:// or https:// (e.g. http://localhost:11434/v1), not \"" +
                    options.base_url + "\"");
  }
  const ModelSpec* spec = find_model(options.model);
  if (spec != nullptr && spec->provider == Provider::Compatible && options.base_url == kOpenAIBaseUrl) {
    return fail(ErrorKind::InvalidArgument,
                "model " + options.model +
                    " is an open model served by your own server: pass --base-url, e.g. http://127.0.0.1:8000/v1 "
                    "(vLLM), http://127.0.0.1:8080/v1 (llama.cpp) or http://127.0.0.1:11434/v1 (Ollama)");
  }
  const bool hosted =
      options.base_url == kOpenAIBaseUrl || options.base_url == kAnthropicBaseUrl || options.base_url == kGeminiBaseUrl;
  if (hosted && options.api_key.empty()) {
    return fail(ErrorKind::InvalidArgument, "no API key for " + detail::provider_name(provider) + ": set " +
                                                std::string(key_variable(provider)) + " or pass --api-key");
  }
  if (options.max_tokens <= 0) return fail(ErrorKind::InvalidArgument, "--max-tokens must be positive");
  if (options.image.width < 0) return fail(ErrorKind::InvalidArgument, "--img-res must be positive");
  if (options.image.jpeg_quality < 1 || options.image.jpeg_quality > 100) {
    return fail(ErrorKind::InvalidArgument, "--jpeg-quality must be between 1 and 100");
  }
  if (options.full_history < 1) return fail(ErrorKind::InvalidArgument, "--history must be at least 1");
  if (options.cache_key.empty()) options.cache_key = random_cache_key();
  auto impl = std::make_unique<Impl>();
  VIMGPT_TRY(impl->rules, detail::resolve_rules(options, provider, impl->notices));
  VIMGPT_TRY(impl->dialect, detail::open_family_dialect(options, provider, impl->rules.spec));
  if (options.mode == InteractionMode::ComputerUse) {
    VIMGPT_TRY(impl->computer_tool, detail::computer_tool_of(options, impl->rules.provider, impl->rules.spec));
    impl->dialect = detail::computer_tool_dialect(impl->rules.provider);
    // OpenAI's computer tool is the Responses API's only; Gemini's is Google's native API's.
    if (impl->rules.provider == Provider::OpenAI) impl->rules.api = ModelApi::Responses;
    if (impl->rules.provider == Provider::Gemini) impl->rules.api = ModelApi::GenerateContent;
  }
  if (impl->dialect) impl->rules.structured = StructuredMethod::None;
  impl->options = std::move(options);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const ClientOptions& Client::options() const {
  return impl_->options;
}

bool Client::structured_active() const {
  return impl_->structured_now();
}

Provider Client::provider() const {
  return impl_->rules.provider;
}

const ModelSpec* Client::model_spec() const {
  return impl_->rules.spec;
}

const Dialect* Client::dialect() const {
  return impl_->dialect ? &*impl_->dialect : nullptr;
}

std::vector<std::string> Client::notices() const {
  std::scoped_lock lock(impl_->mutex);
  return impl_->notices;
}

Result<CheckVerdict> Client::check_answer(const AnswerCheck& check) {
  Impl& self = *impl_;
  VIMGPT_TRY(EncodedImage frame, self.ready_image(check.frame, 1));
  const std::vector<EncodedImage> images{std::move(frame)};
  Decision decision;
  decision.request_metadata = Json::object();  // call() counts its bytes and attempts there
  auto reply = self.call(self.chat(self.options.model, check_prompt(check), &images, false), decision);
  self.count(decision.usage);
  if (!reply) return reply.failure();
  return read_check(reply->text);
}

long Client::last_status() const {
  return impl_->last_status.load();
}

Usage Client::usage() const {
  std::scoped_lock lock(impl_->mutex);
  return impl_->usage;
}

Result<PreparedRequest> Client::prepare(const StepRequest& step) const {
  VIMGPT_TRY_VOID(check_image_count(step));
  PreparedRequest prepared;
  for (const auto& image : step.images) {
    VIMGPT_TRY(EncodedImage ready, impl_->ready_image(image, step.images.size()));
    prepared.estimated_image_tokens +=
        estimate_image_tokens(impl_->rules.images, ready.width, ready.height, impl_->options.detail);
    prepared.images.push_back(std::move(ready));
  }
  VIMGPT_TRY_VOID(impl_->add_closer_look(step, prepared.images));
  const bool structured = impl_->options.formalize_model.empty() && impl_->structured_now();
  const auto request =
      impl_->dialect ? impl_->dialect_chat(step, prepared.images)
                     : impl_->chat(impl_->options.model, impl_->step_prompt(step), &prepared.images, structured, &step);
  http::HttpRequest http_request = detail::build_request(request);
  prepared.url = std::move(http_request.url);
  prepared.body = std::move(http_request.body);
  return prepared;
}

Result<Usage> Client::estimate(const StepRequest& step) const {
  VIMGPT_TRY(PreparedRequest prepared, prepare(step));
  Usage estimate;
  estimate.requests = 1;
  // The tokenizer is the model's, whoever serves it: gpt-5.4 behind a gateway counts as on OpenAI.
  const ModelSpec* model = find_model(impl_->options.model);
  estimate.prompt_tokens =
      detail::request_text_tokens(prepared, model != nullptr ? model->tokenizer : "") + prepared.estimated_image_tokens;
  estimate.completion_tokens = impl_->token_cap(&step);
  const auto price = detail::price_for(impl_->options, impl_->options.model);
  estimate.cost_known = price.has_value();
  if (price) estimate.cost_usd = cost_of(estimate, *price);
  return estimate;
}

Result<FittedRequest> Client::fit(const StepRequest& step, const BudgetLeft& left) const {
  VIMGPT_TRY(Usage whole, estimate(step));
  const auto price = detail::price_for(impl_->options, impl_->options.model);
  const auto bound_with = [&](std::int64_t cap) {
    Usage bound = whole;
    bound.completion_tokens = cap;
    if (price) bound.cost_usd = cost_of(bound, *price);
    return bound;
  };
  const auto fits = [&](const Usage& bound) {
    return (!left.usd || !price || bound.cost_usd <= *left.usd) &&
           (!left.tokens || bound.total_tokens() <= *left.tokens);
  };
  if (fits(whole)) return FittedRequest{0, whole};
  // Only the reasoning allowance gives way: the reply keeps its own room (--max-tokens).
  const int least = std::min(impl_->reply_cap(), static_cast<int>(whole.completion_tokens));
  if (!fits(bound_with(least))) return FittedRequest{-1, bound_with(least)};
  // Cost and tokens are linear in the cap: the largest cap each budget pays for, then checked (rounding).
  std::int64_t cap = whole.completion_tokens;
  if (left.tokens) cap = std::min(cap, *left.tokens - whole.prompt_tokens);
  if (left.usd && price && whole.completion_tokens > 0) {
    const double prompt_cost = bound_with(0).cost_usd;
    const double per_token = (whole.cost_usd - prompt_cost) / static_cast<double>(whole.completion_tokens);
    if (per_token > 0) cap = std::min(cap, static_cast<std::int64_t>((*left.usd - prompt_cost) / per_token));
  }
  while (cap > least && !fits(bound_with(cap))) --cap;
  cap = std::max<std::int64_t>(cap, least);
  return FittedRequest{static_cast<int>(cap), bound_with(cap)};
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
    VIMGPT_TRY(EncodedImage ready, self.ready_image(image, step.images.size()));
    decision.estimated_image_tokens +=
        estimate_image_tokens(self.rules.images, ready.width, ready.height, options.detail);
    image_metadata.push_back(
        {{"mime", ready.mime()}, {"width", ready.width}, {"height", ready.height}, {"bytes", ready.bytes.size()}});
    images.push_back(std::move(ready));
  }
  VIMGPT_TRY_VOID(self.add_closer_look(step, images));
  const bool structured = !formalize && self.structured_now();
  auto request = self.dialect ? self.dialect_chat(step, images)
                              : self.chat(options.model, self.step_prompt(step), &images, structured, &step);
  decision.request_metadata = {{"provider", to_string(self.rules.provider)},
                               {"model", options.model},
                               {"base_url", options.base_url},
                               {"detail", to_string(options.detail)},
                               {"structured", to_string(request.structured)},
                               {"max_tokens", request.max_tokens},
                               {"images", std::move(image_metadata)},
                               {"estimated_image_tokens", decision.estimated_image_tokens}};
  if (!request.effort.empty()) decision.request_metadata["effort"] = request.effort;
  if (!request.thinking.empty()) decision.request_metadata["thinking"] = request.thinking;
  if (request.temperature) decision.request_metadata["temperature"] = *request.temperature;
  if (formalize) decision.request_metadata["formalize_model"] = options.formalize_model;
  if (self.dialect) {
    decision.request_metadata["dialect"] = to_string(self.dialect->kind);
    if (!self.dialect->family.empty()) decision.request_metadata["family"] = self.dialect->family;
  }
  if (!request.cache_key.empty()) decision.request_metadata["prompt_cache_key"] = options.cache_key;
  decision.timings.prepare = since(start);

  const auto model_start = Clock::now();
  // Every call made is paid for, whether or not the decision succeeds: count it on every way out.
  struct UsageGuard {
    Impl& self;
    const Usage& used;
    UsageGuard(Impl& owner, const Usage& counted) : self(owner), used(counted) {}
    UsageGuard(const UsageGuard&) = delete;
    UsageGuard& operator=(const UsageGuard&) = delete;
    ~UsageGuard() { self.count(used); }
  } guard{self, decision.usage};

  // call() gets a copy (the prompt's text; the images are held by pointer): `request` is kept to ask again with more
  // room should the reply be cut off by the cap half way.
  VIMGPT_TRY(detail::ChatReply reply, self.call(request, decision));
  decision.raw_reply = reply.text;
  decision.finish_reason = reply.finish_reason;
  if (self.dialect) return self.finish_dialect(step, images, reply, std::move(decision), model_start, start);

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
  if (!parsed && !formalize && reply.finish_reason == "length" && request.widen_when_starved) {
    // Cut off by the cap half way: what was never written cannot be repaired, so the step is asked again, once, with
    // room to finish (as a reply starved by its reasoning is).
    const int cap = request.max_tokens;
    request.max_tokens *= kCutOffRetryFactor;
    decision.request_metadata["widened_cap"] = request.max_tokens;
    self.note("model " + request.model + " was cut off at its " + std::to_string(cap) +
              "-token cap half way through its reply: asked again with " + std::to_string(request.max_tokens) +
              " (raise --max-tokens to keep it so).");
    VIMGPT_TRY(reply, self.call(std::move(request), decision));
    decision.raw_reply = reply.text;
    decision.finish_reason = reply.finish_reason;
    parsed = self.parse(reply);
  }
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
