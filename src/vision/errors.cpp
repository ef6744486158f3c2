// Providers' errors told apart: which field a 400 refuses (so it can be left out, and only then), which errors
// are worth another attempt (the official SDKs' rule), and which are quota or spend limits that no retry fixes.
// OpenAI: https://platform.openai.com/docs/guides/error-codes ; Anthropic: https://docs.anthropic.com/en/api/errors
#include <algorithm>
#include <array>

#include "common/text.h"
#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

std::string string_of(const Json& object, const char* key) {
  const auto& value = object.is_object() ? object.value(key, Json()) : Json();
  return value.is_string() ? value.get<std::string>() : std::string();
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// OpenAI's codes for a quota or limit reached (error.type insufficient_quota, error.code one of these):
// https://help.openai.com/en/articles/6614457 ("Retrying these errors won't restore access").
constexpr std::array<std::string_view, 5> kOpenAIQuotaCodes = {
    "insufficient_quota", "credit_balance_exhausted", "organization_spend_limit_exceeded",
    "project_spend_limit_exceeded", "organization_usage_limit_exceeded"};

}  // namespace

ProviderError read_error(const http::HttpResponse& response) {
  ProviderError error;
  error.status = response.status;
  Json body = Json::parse(response.body, nullptr, false);
  // Google's OpenAI-compatible endpoint answers with a list of one: [{"error": {"code", "message", "status",
  // "details": [{"reason"}]}}] (seen in its forum's reports; the shape is not documented).
  if (body.is_array() && !body.empty() && body.front().is_object()) body = Json(body.front());
  const Json& inner = body.is_object() ? body.value("error", Json()) : Json();
  if (inner.is_object() && inner.contains("status")) {
    error.type = string_of(inner, "status");  // RESOURCE_EXHAUSTED, INVALID_ARGUMENT, UNAVAILABLE
    error.message = string_of(inner, "message");
    for (const auto& detail : inner.value("details", Json::array())) {
      if (error.code.empty()) error.code = string_of(detail, "reason");  // API_KEY_INVALID
    }
  } else if (inner.is_object()) {
    error.type = string_of(inner, "type");
    error.param = string_of(inner, "param");
    error.message = string_of(inner, "message");
    const auto& code = inner.value("code", Json());
    error.code = code.is_string() ? code.get<std::string>() : code.is_number() ? code.dump() : std::string();
  } else if (inner.is_string()) {
    error.message = inner.get<std::string>();
  } else if (body.is_object()) {
    error.message = string_of(body, "message");  // llama.cpp, vLLM and others
  }
  if (error.message.empty() && !body.is_object()) error.message = response.body.substr(0, 300);
  return error;
}

std::string refused_field(const ProviderError& error, Provider provider) {
  if (error.status != 400 && error.status != 422) return {};
  const std::string message = ascii_lower(error.message);
  if (provider == Provider::Anthropic) {
    // Anthropic names the field first ("output_config.format.schema: Invalid schema ...", "\"thinking.type.
    // disabled\" is not supported ... Use ... \"output_config.effort\""): only the first word counts, since advice
    // after it may name other fields.
    std::string_view leading = message;
    while (!leading.empty() && (leading.front() == '"' || leading.front() == '`' || leading.front() == '\'')) {
      leading.remove_prefix(1);
    }
    for (const auto& [name, field] :
         std::array<std::pair<std::string_view, std::string_view>, 5>{{{"output_config.format", "response_format"},
                                                                       {"output_config.effort", "effort"},
                                                                       {"thinking", "thinking"},
                                                                       {"temperature", "temperature"},
                                                                       {"tool_choice", "tool_choice"}}}) {
      if (leading.starts_with(name)) return std::string(field);
    }
    return {};
  }
  // OpenAI puts the field in error.param; compatible servers say it in words, if at all.
  const std::string param = ascii_lower(error.param);
  for (const std::string_view field : {"response_format", "reasoning_effort", "temperature", "max_tokens",
                                       "max_completion_tokens", "prompt_cache_key"}) {
    if (param == field || param.starts_with(std::string(field) + ".")) return std::string(field);
  }
  if (contains(message, "response_format") || contains(message, "json_schema")) return "response_format";
  // Google names the field bare: "Invalid reasoning_effort: minimal. Valid values are: high, low, medium, none".
  if (provider == Provider::Gemini && contains(message, "reasoning_effort")) return "reasoning_effort";
  for (const std::string_view field :
       {"reasoning_effort", "temperature", "max_completion_tokens", "max_tokens", "prompt_cache_key"}) {
    if (contains(message, "'" + std::string(field) + "'") || contains(message, "\"" + std::string(field) + "\"") ||
        contains(message, "argument supplied: " + std::string(field)))
      return std::string(field);
  }
  return {};
}

bool is_quota_error(const ProviderError& error) {
  const auto quota_code = [](const std::string& text) {
    return std::find(kOpenAIQuotaCodes.begin(), kOpenAIQuotaCodes.end(), text) != kOpenAIQuotaCodes.end();
  };
  if (quota_code(error.type) || quota_code(error.code)) return true;
  if (error.type == "billing_error" || error.status == 402) return true;
  // Anthropic: "Your credit balance is too low ..." (a 400), and spend limits (400, or 429 for tier caps).
  const std::string message = ascii_lower(error.message);
  return contains(message, "credit balance") || contains(message, "spend limit") || contains(message, "usage limit") ||
         contains(message, "exceeded your current quota");
}

bool is_key_error(const ProviderError& error) {
  // Google answers a wrong key with a 400 (reason API_KEY_INVALID, "API key not valid"), not a 401.
  return error.status == 401 || error.code == "API_KEY_INVALID" ||
         (error.status == 400 && contains(ascii_lower(error.message), "api key"));
}

bool should_retry(const http::HttpResponse& response) {
  return http::is_worth_retrying(response) && !is_quota_error(read_error(response));
}

Error provider_failure(const http::HttpResponse& response, const http::HttpRequest& request, std::string_view what,
                       Provider provider) {
  const ProviderError error = read_error(response);
  const std::string said = http::redact(error.message.substr(0, 400), request);
  const std::string code = error.code.empty() ? error.type : error.code;
  const std::string tag = "HTTP " + std::to_string(response.status) + (code.empty() ? "" : ", " + code);
  const std::string target = http::redact(what, request);
  if (is_quota_error(error)) {
    return {ErrorKind::Http, "the provider refused " + target + " for quota, credit or a spend limit (" + tag +
                                 "): not retried, as no retry fixes it. Add credit or raise the limit in the "
                                 "provider's console. It said: " +
                                 said};
  }
  if (is_key_error(error)) {
    return {ErrorKind::Http, "the API key was refused by " + target + " (" + tag + "): check " +
                                 std::string(key_variable(provider)) + " or --api-key. It said: " + said};
  }
  if (error.code == "context_length_exceeded" || contains(ascii_lower(error.message), "context window") ||
      contains(ascii_lower(error.message), "maximum context length")) {
    return {ErrorKind::InvalidArgument, "the request is longer than " + target + "'s context window (" + tag +
                                            "): lower --history or --frames. It said: " + said};
  }
  if (response.status == 400 || response.status == 422) {
    const std::string field = refused_field(error, provider);
    const std::string hint =
        field == "response_format" ? " If this server has no structured output, pass --structured off."
        : field.empty()            ? std::string()
                        : " The request's " + field + " was refused; if vimgpt's catalogue is out of date for " +
                              "this model, see vimgpt models.";
    return {ErrorKind::Http,
            "the server rejected the request for " + target + " (" + tag + ")." + hint + " It said: " + said};
  }
  const Status status = http::check_status(response, request, what);
  return status ? Error{ErrorKind::Http, "unexpected " + tag + " from " + target} : status.error();
}

}  // namespace vimgpt::vision::detail
