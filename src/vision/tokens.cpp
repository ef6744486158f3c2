// Provider choice, image token estimates and prices: what a request will cost before and after it is sent.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "vision/vision.h"

namespace vimgpt::vision {

std::string_view to_string(Provider provider) {
  switch (provider) {
    case Provider::Auto: return "auto";
    case Provider::OpenAI: return "openai";
    case Provider::Anthropic: return "anthropic";
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
  return fail(ErrorKind::InvalidArgument,
              "unknown provider \"" + std::string(text) + "\": use auto, openai or anthropic");
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

Provider resolve_provider(Provider provider, std::string_view model) {
  if (provider != Provider::Auto) return provider;
  // Only the bare Anthropic names: "anthropic/claude-..." is an OpenRouter model behind an OpenAI-compatible API.
  return model.starts_with("claude-") ? Provider::Anthropic : Provider::OpenAI;
}

int estimate_image_tokens(Provider provider, int width, int height, Detail detail) {
  if (width <= 0 || height <= 0) return 0;
  double w = width;
  double h = height;
  if (provider == Provider::Anthropic) {
    // https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
    constexpr double kMaxEdge = 1568;
    if (const double edge = std::max(w, h); edge > kMaxEdge) {
      w *= kMaxEdge / edge;
      h *= kMaxEdge / edge;
    }
    return static_cast<int>(std::lround(w * h / 750.0));
  }
  // https://platform.openai.com/docs/guides/vision#calculating-costs ; auto is counted as high, the worst case.
  if (detail == Detail::Low) return 85;
  if (const double longest = std::max(w, h); longest > 2048) {
    w *= 2048 / longest;
    h *= 2048 / longest;
  }
  if (const double shortest = std::min(w, h); shortest > 768) {
    w *= 768 / shortest;
    h *= 768 / shortest;
  }
  const auto tiles = static_cast<int>(std::ceil(w / 512) * std::ceil(h / 512));
  return 170 * tiles + 85;
}

std::optional<Price> default_price(std::string_view model) {
  struct Entry {
    std::string_view prefix;
    Price price;
  };
  // List prices in USD per million tokens: input, output, cached input, cache write. Longest prefix wins, so
  // "gpt-4o-mini" beats "gpt-4o". OpenAI writes its cache at the input price; Anthropic reads it at 10% and
  // writes it at 125% of the input price (5-minute cache). gpt-4-turbo and gpt-4-vision have no cache.
  static constexpr std::array<Entry, 20> kTable{{
      {"gpt-4o-mini", {0.15, 0.60, 0.075, 0.15}},
      {"gpt-4o", {2.50, 10.00, 1.25, 2.50}},
      {"gpt-4.1-nano", {0.10, 0.40, 0.025, 0.10}},
      {"gpt-4.1-mini", {0.40, 1.60, 0.10, 0.40}},
      {"gpt-4.1", {2.00, 8.00, 0.50, 2.00}},
      {"gpt-4-turbo", {10.00, 30.00, 10.00, 10.00}},
      {"gpt-4-vision-preview", {10.00, 30.00, 10.00, 10.00}},
      {"gpt-5-nano", {0.05, 0.40, 0.005, 0.05}},
      {"gpt-5-mini", {0.25, 2.00, 0.025, 0.25}},
      {"gpt-5", {1.25, 10.00, 0.125, 1.25}},
      {"o4-mini", {1.10, 4.40, 0.275, 1.10}},
      {"o3", {2.00, 8.00, 0.50, 2.00}},
      {"claude-3-haiku", {0.25, 1.25, 0.03, 0.30}},
      {"claude-3-5-haiku", {0.80, 4.00, 0.08, 1.00}},
      {"claude-3-5-sonnet", {3.00, 15.00, 0.30, 3.75}},
      {"claude-3-7-sonnet", {3.00, 15.00, 0.30, 3.75}},
      {"claude-sonnet-4", {3.00, 15.00, 0.30, 3.75}},
      {"claude-3-opus", {15.00, 75.00, 1.50, 18.75}},
      {"claude-opus-4", {15.00, 75.00, 1.50, 18.75}},
      {"claude-haiku-4", {1.00, 5.00, 0.10, 1.25}},
  }};
  const Entry* best = nullptr;
  for (const auto& entry : kTable) {
    if (model.starts_with(entry.prefix) && (best == nullptr || entry.prefix.size() > best->prefix.size())) {
      best = &entry;
    }
  }
  if (best == nullptr) return std::nullopt;
  return best->price;
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
  Json json = {{"prompt_tokens", usage.prompt_tokens},
               {"cached_tokens", usage.cached_tokens},
               {"cache_write_tokens", usage.cache_write_tokens},
               {"completion_tokens", usage.completion_tokens},
               {"requests", usage.requests}};
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
  requests += other.requests;
  cost_usd += other.cost_usd;
  cost_known = cost_known && other.cost_known;
  return *this;
}

}  // namespace vimgpt::vision
