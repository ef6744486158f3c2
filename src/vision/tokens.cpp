// Provider choice, flag values and what a request's tokens cost.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "vision/provider.h"
#include "vision/vision.h"

namespace vimgpt::vision {

std::string_view to_string(Provider provider) {
  switch (provider) {
    case Provider::Auto: return "auto";
    case Provider::OpenAI: return "openai";
    case Provider::Anthropic: return "anthropic";
    case Provider::Gemini: return "gemini";
    case Provider::Compatible: return "compatible";
  }
  return "auto";
}

std::string_view to_string(Detail detail) {
  switch (detail) {
    case Detail::Auto: return "auto";
    case Detail::Low: return "low";
    case Detail::High: return "high";
  }
  return "auto";
}

std::string_view to_string(Structured structured) {
  switch (structured) {
    case Structured::Auto: return "auto";
    case Structured::On: return "on";
    case Structured::Off: return "off";
  }
  return "auto";
}

Result<Provider> parse_provider(std::string_view text) {
  if (text == "auto") return Provider::Auto;
  if (text == "openai") return Provider::OpenAI;
  if (text == "anthropic") return Provider::Anthropic;
  if (text == "gemini") return Provider::Gemini;
  if (text == "compatible") return Provider::Compatible;
  return fail(ErrorKind::InvalidArgument,
              "unknown provider \"" + std::string(text) + "\": use auto, openai, anthropic, gemini or compatible");
}

std::string_view key_variable(Provider provider) {
  if (provider == Provider::Anthropic) return "ANTHROPIC_API_KEY";
  if (provider == Provider::Gemini) return "GEMINI_API_KEY";
  return "OPENAI_API_KEY";
}

Result<Detail> parse_detail(std::string_view text) {
  if (text == "auto") return Detail::Auto;
  if (text == "low") return Detail::Low;
  if (text == "high") return Detail::High;
  return fail(ErrorKind::InvalidArgument, "unknown detail \"" + std::string(text) + "\": use low, high or auto");
}

Result<Structured> parse_structured(std::string_view text) {
  if (text == "auto") return Structured::Auto;
  if (text == "on") return Structured::On;
  if (text == "off") return Structured::Off;
  return fail(ErrorKind::InvalidArgument, "unknown structured mode \"" + std::string(text) + "\": use auto, on or off");
}

Provider resolve_provider(Provider provider, std::string_view model, std::string_view base_url) {
  if (provider != Provider::Auto) return provider;
  while (base_url.ends_with('/')) base_url.remove_suffix(1);
  if (base_url == kOpenAIBaseUrl) return Provider::OpenAI;
  if (base_url == kAnthropicBaseUrl || base_url == "https://api.anthropic.com/v1") return Provider::Anthropic;
  if (base_url == kGeminiBaseUrl) return Provider::Gemini;
  // Only the bare Anthropic names: "anthropic/claude-..." is an OpenRouter model behind an OpenAI-compatible API.
  if (model.starts_with("claude-")) return Provider::Anthropic;
  // A Gemini model with a base URL of its own is a gateway's (an OpenAI-compatible server), unless --provider says.
  if (model.starts_with("gemini-") && base_url.empty()) return Provider::Gemini;
  return base_url.empty() ? Provider::OpenAI : Provider::Compatible;
}

std::string image_preset_names() {
  std::string names;
  for (const auto& preset : kImagePresets) names += (names.empty() ? "" : ", ") + std::string(preset.name);
  return names;
}

Result<int> parse_image_width(std::string_view text) {
  if (const int preset = preset_width(text); preset > 0) return preset;
  int width = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), width);
  if (error != std::errc() || end != text.data() + text.size() || width < 64 || width > 4096) {
    return fail(ErrorKind::InvalidArgument, "--img-res takes a preset (" + image_preset_names() +
                                                ") or a width from 64 to 4096 pixels, not '" + std::string(text) + "'");
  }
  return width;
}

Result<PromptCache> parse_prompt_cache(std::string_view text) {
  if (text == "auto") return PromptCache::Auto;
  if (text == "on") return PromptCache::On;
  if (text == "off") return PromptCache::Off;
  return fail(ErrorKind::InvalidArgument, "--prompt-cache takes auto, on or off, not \"" + std::string(text) + "\"");
}

Json to_json(const Usage& usage) {
  Json json = {{"prompt_tokens", usage.prompt_tokens},           {"cached_tokens", usage.cached_tokens},
               {"cache_write_tokens", usage.cache_write_tokens}, {"completion_tokens", usage.completion_tokens},
               {"reasoning_tokens", usage.reasoning_tokens},     {"requests", usage.requests}};
  if (usage.cost_known) json["cost_usd"] = usage.cost_usd;
  return json;
}

double cost_of(const Usage& usage, const Price& price) {
  const auto uncached = usage.prompt_tokens - usage.cached_tokens - usage.cache_write_tokens;
  return (static_cast<double>(uncached) * price.input_per_million +
          static_cast<double>(usage.cached_tokens) * price.cached_input_per_million +
          static_cast<double>(usage.cache_write_tokens) * price.cache_write_per_million +
          static_cast<double>(usage.completion_tokens) * price.output_per_million) /
         1e6;
}

Usage& Usage::operator+=(const Usage& other) {
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  cached_tokens += other.cached_tokens;
  cache_write_tokens += other.cache_write_tokens;
  reasoning_tokens += other.reasoning_tokens;
  requests += other.requests;
  cost_usd += other.cost_usd;
  cost_known = cost_known && other.cost_known;
  return *this;
}

namespace detail {

std::optional<Price> price_for(const ClientOptions& options, std::string_view model) {
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

Usage usage_of(const ChatReply& reply, const std::optional<Price>& price) {
  Usage used;
  used.prompt_tokens = reply.prompt_tokens;
  used.completion_tokens = reply.completion_tokens;
  used.cached_tokens = reply.cached_tokens;
  used.cache_write_tokens = reply.cache_write_tokens;
  used.reasoning_tokens = reply.reasoning_tokens;
  used.requests = 1;
  used.cost_known = price.has_value();
  if (price) used.cost_usd = cost_of(used, *price);
  return used;
}

}  // namespace detail

}  // namespace vimgpt::vision
