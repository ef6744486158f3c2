// Provider choice, image token estimates and prices: what a request will cost before and after it is sent.
#include <algorithm>
#include <array>
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
  // List prices in USD per million tokens (input, output). Longest prefix wins, so "gpt-4o-mini" beats "gpt-4o".
  static constexpr std::array<Entry, 20> kTable{{
      {"gpt-4o-mini", {0.15, 0.60}},
      {"gpt-4o", {2.50, 10.00}},
      {"gpt-4.1-nano", {0.10, 0.40}},
      {"gpt-4.1-mini", {0.40, 1.60}},
      {"gpt-4.1", {2.00, 8.00}},
      {"gpt-4-turbo", {10.00, 30.00}},
      {"gpt-4-vision-preview", {10.00, 30.00}},
      {"gpt-5-nano", {0.05, 0.40}},
      {"gpt-5-mini", {0.25, 2.00}},
      {"gpt-5", {1.25, 10.00}},
      {"o4-mini", {1.10, 4.40}},
      {"o3", {2.00, 8.00}},
      {"claude-3-haiku", {0.25, 1.25}},
      {"claude-3-5-haiku", {0.80, 4.00}},
      {"claude-3-5-sonnet", {3.00, 15.00}},
      {"claude-3-7-sonnet", {3.00, 15.00}},
      {"claude-sonnet-4", {3.00, 15.00}},
      {"claude-3-opus", {15.00, 75.00}},
      {"claude-opus-4", {15.00, 75.00}},
      {"claude-haiku-4", {1.00, 5.00}},
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

Usage& Usage::operator+=(const Usage& other) {
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  requests += other.requests;
  cost_usd += other.cost_usd;
  cost_known = cost_known && other.cost_known;
  return *this;
}

}  // namespace vimgpt::vision
