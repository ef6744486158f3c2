// OpenAI-compatible Chat Completions: https://platform.openai.com/docs/api-reference/chat/create
// Only standard fields are sent (Ollama, vLLM, llama.cpp's server and OpenRouter take the same body), and
// response_format only when structured output is in use.
#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

// Newer OpenAI reasoning models refuse max_tokens and want max_completion_tokens instead.
bool wants_max_completion_tokens(std::string_view model) {
  return model.starts_with("o1") || model.starts_with("o3") || model.starts_with("o4") || model.starts_with("gpt-5");
}

std::string placeholder(std::size_t index) {
  return "@@vimgpt-image-" + std::to_string(index) + "@@";
}

}  // namespace

http::HttpRequest build_openai_request(const ChatRequest& request) {
  Json user_content = Json::array();
  for (const auto& block : request.blocks) user_content.push_back({{"type", "text"}, {"text", block}});
  const std::size_t image_count = request.images != nullptr ? request.images->size() : 0;
  for (std::size_t i = 0; i < image_count; ++i) {
    // The base64 goes in after serialisation: hundreds of KB that need no escaping, so no need to scan them.
    user_content.push_back(
        {{"type", "image_url"}, {"image_url", {{"url", placeholder(i)}, {"detail", to_string(request.detail)}}}});
  }
  Json body = {{"model", request.model},
               {"messages", Json::array({{{"role", "system"}, {"content", request.system}},
                                         {{"role", "user"}, {"content", std::move(user_content)}}})}};
  body[wants_max_completion_tokens(request.model) ? "max_completion_tokens" : "max_tokens"] = request.max_tokens;
  if (request.temperature) body["temperature"] = *request.temperature;
  if (!request.cache_key.empty()) body["prompt_cache_key"] = request.cache_key;
  if (request.structured) {
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema",
         {{"name", "browser_action"}, {"strict", true}, {"schema", action_schema(SchemaStyle::Strict)}}}};
  }
  std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  // Images follow all text in the body, so search from the end: user text cannot shadow a placeholder.
  for (std::size_t i = image_count; i-- > 0;) {
    const EncodedImage& image = (*request.images)[i];
    const std::string marker = placeholder(i);
    const auto at = text.rfind(marker);
    text.replace(at, marker.size(),
                 "data:" + std::string(image.mime()) + ";base64," + http::base64_encode(image.bytes));
  }

  http::HttpRequest http_request;
  http_request.url = request.base_url + "/chat/completions";
  http_request.body = std::move(text);
  http_request.headers.set("Content-Type", "application/json");
  if (!request.api_key.empty()) http_request.headers.set("Authorization", "Bearer " + request.api_key);
  http_request.connect_timeout = request.connect_timeout;
  http_request.total_timeout = request.total_timeout;
  http_request.max_response_bytes = request.max_response_bytes;
  return http_request;
}

Result<ChatReply> parse_openai_response(const http::HttpResponse& response, bool structured) {
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return fail(ErrorKind::Http, "the server's reply is not a JSON object (HTTP " + std::to_string(response.status) +
                                     "): is the base URL an OpenAI-compatible API?");
  }
  ChatReply reply;
  reply.structured = structured;
  if (const auto& usage = body.value("usage", Json()); usage.is_object()) {
    reply.prompt_tokens = usage.value("prompt_tokens", std::int64_t{0});
    reply.completion_tokens = usage.value("completion_tokens", std::int64_t{0});
    // https://platform.openai.com/docs/guides/prompt-caching : part of prompt_tokens, not beside them.
    if (const auto& details = usage.value("prompt_tokens_details", Json()); details.is_object()) {
      const auto& cached = details.value("cached_tokens", Json());
      if (cached.is_number_integer()) reply.cached_tokens = cached.get<std::int64_t>();
    }
  }
  const auto& choices = body.value("choices", Json());
  if (!choices.is_array() || choices.empty() || !choices[0].is_object()) {
    return fail(ErrorKind::Http, "the model's reply contained no choices (HTTP " + std::to_string(response.status) +
                                     "); the provider may have filtered it");
  }
  const auto& choice = choices[0];
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
    reply.finish_reason = choice["finish_reason"].get<std::string>();
  }
  const auto& message = choice.value("message", Json::object());
  if (message.contains("refusal") && message["refusal"].is_string()) {
    return fail(ErrorKind::Refused, "the model refused: " + message["refusal"].get<std::string>());
  }
  const auto& content = message.value("content", Json());
  if (content.is_string()) {
    reply.text = content.get<std::string>();
  } else if (content.is_array()) {  // some servers send content parts even in replies
    for (const auto& part : content) {
      if (part.is_object() && part.value("type", "") == "text") reply.text += part.value("text", "");
    }
  }
  return reply;
}

}  // namespace vimgpt::vision::detail
