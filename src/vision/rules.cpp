// What each model's requests may carry, from the catalogue: the cap's field and size, the reasoning effort, the
// temperature, Anthropic's thinking and the structured-output method. A model the catalogue does not know gets
// what every server of its provider accepts, and the person is told.
#include <algorithm>
#include <array>

#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

// A model the catalogue does not know may still reason (a newer family): the cap keeps room for it.
constexpr int kUnknownReasoningReserve = 4096;

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

bool on_own_api(Provider provider, std::string_view base_url) {
  return (provider == Provider::OpenAI && base_url == kOpenAIBaseUrl) ||
         (provider == Provider::Gemini && base_url == kGeminiBaseUrl) ||
         (provider == Provider::Anthropic &&
          (base_url == kAnthropicBaseUrl || base_url == "https://api.anthropic.com/v1"));
}

// The catalogue's reserve is for its lowest effort; a higher one asked for gets twice the room a level up.
int reserve_for(const std::string& effort, int reserve) {
  static constexpr std::array<std::string_view, 5> kAboveLow = {"low", "medium", "high", "xhigh", "max"};
  const auto level = std::find(kAboveLow.begin(), kAboveLow.end(), effort);
  return level == kAboveLow.end() ? reserve : reserve << (level - kAboveLow.begin());
}

// The effort to send: the person's (checked against what the model takes), else the catalogue's.
Result<std::string> effort_of(const ClientOptions& options, const ModelSpec* spec) {
  if (options.effort.empty()) return spec != nullptr ? spec->effort : std::string();
  if (spec == nullptr) return options.effort;  // unknown model: the server decides
  if (spec->efforts.empty()) {
    return fail(ErrorKind::InvalidArgument,
                "model " + spec->id + " takes no reasoning effort: leave out --effort " + options.effort);
  }
  if (std::find(spec->efforts.begin(), spec->efforts.end(), options.effort) == spec->efforts.end()) {
    return fail(ErrorKind::InvalidArgument,
                "model " + spec->id + " takes --effort " + joined(spec->efforts) + ", not \"" + options.effort + "\"");
  }
  return options.effort;
}

bool temperature_accepted(const ModelSpec& spec, const std::string& effort) {
  switch (spec.temperature) {
    case TemperatureRule::Yes: return true;
    case TemperatureRule::No: return false;
    case TemperatureRule::WithoutReasoning: return effort == "none";
  }
  return true;
}

std::string unknown_model_notice(const ClientOptions& options, Provider provider) {
  std::string notice = "model " + options.model + " is not in vimgpt's catalogue (read " +
                       std::string(catalogue_read_on()) + "; vimgpt models lists it): it gets what every " +
                       (provider == Provider::Compatible ? std::string("OpenAI-compatible server")
                                                         : provider_name(provider) + " model") +
                       " accepts, and no price is known: pass --price-in and --price-out (USD per million tokens";
  return notice + (provider == Provider::Compatible ? "; 0 and 0 for a local model)" : ")") +
         " to see costs and to use --max-cost.";
}

}  // namespace

std::string provider_name(Provider provider) {
  if (provider == Provider::Anthropic) return "Anthropic";
  return provider == Provider::Gemini ? "Google" : "OpenAI";
}

Result<RequestRules> resolve_rules(const ClientOptions& options, Provider provider, std::vector<std::string>& notices) {
  RequestRules rules;
  rules.provider = provider;
  const ModelSpec* spec = find_model(options.model);
  rules.images = spec != nullptr ? spec->images : default_image_rule(provider);
  rules.structured = provider == Provider::Anthropic ? StructuredMethod::OutputConfig
                     : provider == Provider::Gemini  ? StructuredMethod::None  // models.json's "gemini-schema"
                                                     : StructuredMethod::JsonSchema;
  rules.temperature = options.temperature;

  if (provider == Provider::Compatible) {
    // The generic rules: max_tokens (what Ollama, vLLM, llama.cpp and LM Studio read), nothing provider-specific.
    rules.token_field = "max_tokens";
    rules.effort = options.effort;
    if (spec != nullptr && spec->provider == Provider::Compatible) {
      // An open family: its own server, its own rules (dialect, no structured output, its images).
      rules.spec = spec;
      rules.structured = StructuredMethod::None;
      return rules;
    }
    if (spec != nullptr) {
      notices.push_back("model " + options.model + " is " + provider_name(spec->provider) +
                        "'s, but this base URL gets the rules of an OpenAI-compatible server (max_tokens, no reasoning "
                        "effort): if it is " +
                        provider_name(spec->provider) + "'s API behind a gateway or proxy, pass --provider " +
                        std::string(to_string(spec->provider)) + ".");
    } else {
      notices.push_back(unknown_model_notice(options, provider));
    }
    return rules;
  }

  if (spec != nullptr && spec->provider != provider) {
    notices.push_back("model " + spec->id + " is " + provider_name(spec->provider) + "'s, sent with --provider " +
                      std::string(to_string(provider)) + "'s request format.");
    spec = nullptr;
  }
  rules.spec = spec;
  if (spec == nullptr) {
    notices.push_back(unknown_model_notice(options, provider));
    rules.token_field = provider == Provider::OpenAI ? "max_completion_tokens" : "max_tokens";
    rules.effort = options.effort;
    rules.reasoning_reserve = rules.effort == "none" ? 0 : kUnknownReasoningReserve;
    return rules;
  }

  const std::string instead = spec->replacement.empty() ? "" : " Use " + spec->replacement + " instead.";
  if (spec->status == ModelStatus::Retired) {
    const std::string when = spec->shutdown.empty() ? "" : " on " + spec->shutdown;
    if (on_own_api(provider, options.base_url)) {
      return fail(ErrorKind::InvalidArgument, "model " + options.model + " was retired" + when + " by " +
                                                  provider_name(provider) + ": requests to it fail." + instead +
                                                  " (vimgpt models lists the current ones.)");
    }
    notices.push_back("model " + options.model + " was retired" + when + " on " + provider_name(provider) +
                      "'s own API; this gateway may still serve it." + instead);
  } else if (spec->status == ModelStatus::Deprecated) {
    notices.push_back("model " + spec->id + " is deprecated" +
                      (spec->shutdown.empty() ? std::string() : " and shuts down on " + spec->shutdown) + "." +
                      instead);
  }

  rules.api = spec->api;
  rules.token_field = spec->token_limit;
  VIMGPT_TRY(rules.effort, effort_of(options, spec));
  rules.structured = spec->structured;
  if (spec->provider == Provider::Anthropic) {
    // Thinking is turned off where the model allows it, which is only up to effort high.
    const bool can_turn_off = rules.effort != "xhigh" && rules.effort != "max";
    if (can_turn_off && spec->thinking == Thinking::OffWhenDisabled) rules.thinking = "disabled";
    if (can_turn_off && spec->thinking == Thinking::OffBetweenTools) rules.thinking = "between_tools";
    const bool thinks = spec->thinking != Thinking::Off && rules.thinking.empty();
    rules.reasoning_reserve = thinks ? reserve_for(rules.effort, spec->reasoning_reserve) : 0;
  } else {
    // A model that reasons at a level of its own (the Responses-only pro models take no effort vimgpt knows of)
    // keeps its room all the same.
    const bool reasons = spec->efforts.empty() ? spec->reasoning_reserve > 0 : rules.effort != "none";
    rules.reasoning_reserve = reasons ? reserve_for(rules.effort, spec->reasoning_reserve) : 0;
  }
  if (options.temperature && !temperature_accepted(*spec, rules.effort)) {
    rules.temperature.reset();
    notices.push_back("model " + spec->id + " takes no temperature" +
                      (spec->temperature == TemperatureRule::WithoutReasoning
                           ? " while it reasons (effort " + rules.effort + ")"
                           : std::string()) +
                      ": --temperature is not sent.");
  }
  return rules;
}

bool drop_field(ChatRequest& request, const std::string& field, bool may_drop_structure) {
  if (field == "response_format" && may_drop_structure && request.structured != StructuredMethod::None) {
    request.structured = StructuredMethod::None;
  } else if (field == "temperature" && request.temperature) {
    request.temperature.reset();
  } else if ((field == "reasoning_effort" || field == "effort") && !request.effort.empty()) {
    request.effort.clear();
  } else if (field == "thinking" && !request.thinking.empty()) {
    request.thinking.clear();
  } else if (field == "prompt_cache_key" && !request.cache_key.empty()) {
    request.cache_key.clear();
  } else if (field == "max_tokens" && request.token_field == "max_tokens") {
    request.token_field = "max_completion_tokens";
  } else if (field == "max_completion_tokens" && request.token_field == "max_completion_tokens") {
    request.token_field = "max_tokens";
  } else {
    return false;
  }
  return true;
}

}  // namespace vimgpt::vision::detail
