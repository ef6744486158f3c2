// Anthropic Messages API: https://docs.anthropic.com/en/api/messages
// Structured output is a forced call of one tool whose input schema is the action object. The images come
// after the text, against Anthropic's advice to put them first: the text begins with what every step's
// request shares, and only a shared beginning is cached
// (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

std::string placeholder(std::size_t index) {
  return "@@vimgpt-image-" + std::to_string(index) + "@@";
}

}  // namespace

http::HttpRequest build_anthropic_request(const ChatRequest& request) {
  const Json breakpoint = {{"type", "ephemeral"}};
  Json content = Json::array();
  for (std::size_t i = 0; i < request.blocks.size(); ++i) {
    Json block = {{"type", "text"}, {"text", request.blocks[i]}};
    if (request.cache_breakpoints && i + 1 == request.stable_blocks) block["cache_control"] = breakpoint;
    content.push_back(std::move(block));
  }
  const std::size_t image_count = request.images != nullptr ? request.images->size() : 0;
  for (std::size_t i = 0; i < image_count; ++i) {
    content.push_back(
        {{"type", "image"},
         {"source", {{"type", "base64"}, {"media_type", (*request.images)[i].mime()}, {"data", placeholder(i)}}}});
  }
  Json system = request.system;
  if (request.cache_breakpoints) {
    // The tool and the system prompt are the same for every run: a breakpoint here serves other runs too.
    system = Json::array({{{"type", "text"}, {"text", request.system}, {"cache_control", breakpoint}}});
  }
  Json body = {{"model", request.model},
               {"max_tokens", request.max_tokens},
               {"system", std::move(system)},
               {"messages", Json::array({{{"role", "user"}, {"content", std::move(content)}}})}};
  if (request.temperature) body["temperature"] = *request.temperature;
  if (request.structured) {
    body["tools"] = Json::array({{{"name", kToolName},
                                  {"description", "Perform the next browser action (or finish with done)."},
                                  {"input_schema", action_schema(SchemaStyle::Relaxed)}}});
    body["tool_choice"] = {{"type", "tool"}, {"name", kToolName}};
  }
  std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  // The images are the last blocks of "messages", and what serialises after it ("system", "tools",
  // "temperature") is ours: searched from the end, user text cannot shadow a placeholder.
  for (std::size_t i = image_count; i-- > 0;) {
    const std::string marker = placeholder(i);
    const auto at = text.rfind(marker);
    text.replace(at, marker.size(), http::base64_encode((*request.images)[i].bytes));
  }

  http::HttpRequest http_request;
  http_request.url = request.base_url + "/messages";
  http_request.body = std::move(text);
  http_request.headers.set("Content-Type", "application/json");
  http_request.headers.set("anthropic-version", "2023-06-01");
  if (!request.api_key.empty()) http_request.headers.set("x-api-key", request.api_key);
  http_request.connect_timeout = request.connect_timeout;
  http_request.total_timeout = request.total_timeout;
  http_request.max_response_bytes = request.max_response_bytes;
  return http_request;
}

Result<ChatReply> parse_anthropic_response(const http::HttpResponse& response) {
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return fail(ErrorKind::Http, "the server's reply is not a JSON object (HTTP " + std::to_string(response.status) +
                                     "): is the base URL the Anthropic API?");
  }
  ChatReply reply;
  if (const auto& usage = body.value("usage", Json()); usage.is_object()) {
    // input_tokens counts only what follows the last cache breakpoint; the cached and written tokens come
    // beside it: https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
    const auto count = [&usage](const char* name) {
      const auto& value = usage.value(name, Json());
      return value.is_number_integer() ? value.get<std::int64_t>() : std::int64_t{0};
    };
    reply.cached_tokens = count("cache_read_input_tokens");
    reply.cache_write_tokens = count("cache_creation_input_tokens");
    reply.prompt_tokens = count("input_tokens") + reply.cached_tokens + reply.cache_write_tokens;
    reply.completion_tokens = count("output_tokens");
  }
  const std::string stop = body.value("stop_reason", "");
  reply.finish_reason = stop == "max_tokens" ? "length" : stop;
  const auto& content = body.value("content", Json());
  if (!content.is_array() || content.empty()) {
    return fail(ErrorKind::Http,
                "the model's reply contained no content (HTTP " + std::to_string(response.status) + ")");
  }
  for (const auto& block : content) {
    if (!block.is_object()) continue;
    const std::string type = block.value("type", "");
    if (type == "tool_use" && block.contains("input")) {
      reply.text = block["input"].dump();
      reply.structured = true;
      return reply;
    }
    if (type == "text") reply.text += block.value("text", "");
  }
  return reply;
}

}  // namespace vimgpt::vision::detail
