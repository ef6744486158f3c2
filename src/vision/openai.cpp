// OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/create (and every compatible
// server: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter). The fields beyond the standard ones (the cap's name,
// reasoning_effort, temperature, response_format) are sent as the request's rules say (rules.cpp).
#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

// An open family's turns: a user turn's image first, then its words, as Fara's and Qwen's harnesses send them (or
// between words, as Holo's does); every earlier turn's image is one of the recent screenshots the family keeps.
Json conversation(const ChatRequest& request) {
  Json messages = Json::array();
  for (const auto& turn : request.turns) {
    if (turn.role != "user" || turn.image < 0) {
      messages.push_back({{"role", turn.role}, {"content", turn.text}});
      continue;
    }
    Json content = Json::array();
    if (!turn.lead.empty()) content.push_back({{"type", "text"}, {"text", turn.lead}});
    content.push_back(
        {{"type", "image_url"}, {"image_url", {{"url", image_placeholder(static_cast<std::size_t>(turn.image))}}}});
    if (!blank(turn.text)) content.push_back({{"type", "text"}, {"text", turn.text}});
    messages.push_back({{"role", "user"}, {"content", std::move(content)}});
  }
  return messages;
}

// vLLM with --tool-call-parser (and llama.cpp with --jinja) hand the call back in tool_calls, the content
// emptied: put back in the tags the model wrote, so the reply reads the same from every server.
std::string tool_calls_text(const Json& calls) {
  std::string text;
  for (const auto& call : calls) {
    const Json& function = call.is_object() ? call.value("function", Json()) : Json();
    if (!function.is_object()) continue;
    Json arguments = function.value("arguments", Json());
    if (arguments.is_string()) {
      Json parsed = Json::parse(arguments.get<std::string>(), nullptr, false);
      if (!parsed.is_discarded()) arguments = std::move(parsed);
    }
    text += "<tool_call>\n" + Json{{"name", function.value("name", Json())}, {"arguments", arguments}}.dump() +
            "\n</tool_call>";
  }
  return text;
}

}  // namespace

std::string image_placeholder(std::size_t index) {
  return "@@vimgpt-image-" + std::to_string(index) + "@@";
}

void insert_images(std::string& body, const ChatRequest& request, bool data_urls) {
  if (request.images == nullptr) return;
  // A placeholder is matched with its quotes, as a whole JSON string: the value of an image's field. Text that holds
  // it (a page's) is inside a longer string, or has its quotes escaped, so it never gets the image.
  for (std::size_t i = request.images->size(); i-- > 0;) {
    const EncodedImage& image = (*request.images)[i];
    const std::string marker = "\"" + image_placeholder(i) + "\"";
    const std::string data = http::base64_encode(image.bytes);
    const std::string inserted =
        "\"" + (data_urls ? "data:" + std::string(image.mime()) + ";base64," + data : data) + "\"";
    // An image may stand in more than one place (OpenAI's computer_call_outputs of one step each carry it).
    for (auto at = body.rfind(marker); at != std::string::npos;
         at = at == 0 ? std::string::npos : body.rfind(marker, at - 1)) {
      body.replace(at, marker.size(), inserted);
    }
  }
}

http::HttpRequest http_request(const ChatRequest& request, std::string_view path, std::string body) {
  http::HttpRequest http_request;
  http_request.url = request.base_url + std::string(path);
  http_request.body = std::move(body);
  http_request.headers.set("Content-Type", "application/json");
  http_request.connect_timeout = request.connect_timeout;
  http_request.total_timeout = request.total_timeout;
  http_request.max_response_bytes = request.max_response_bytes;
  return http_request;
}

http::HttpRequest build_openai_request(const ChatRequest& request) {
  Json user_content = Json::array();
  for (const auto& block : request.blocks) {
    if (!blank(block)) user_content.push_back({{"type", "text"}, {"text", block}});
  }
  const std::size_t image_count = request.images != nullptr ? request.images->size() : 0;
  for (std::size_t i = 0; i < image_count; ++i) {
    Json image = {{"url", image_placeholder(i)}};
    // Google's endpoint documents no detail field (its media resolution is not set this way): none is sent.
    if (request.provider != Provider::Gemini) image["detail"] = to_string(request.detail);
    user_content.push_back({{"type", "image_url"}, {"image_url", std::move(image)}});
  }
  Json messages = Json::array(
      {{{"role", "system"}, {"content", request.system}}, {{"role", "user"}, {"content", std::move(user_content)}}});
  if (!request.turns.empty()) messages = conversation(request);
  Json body = {{"model", request.model}, {"messages", std::move(messages)}};
  body[request.token_field] = request.max_tokens;
  if (!request.effort.empty()) body["reasoning_effort"] = request.effort;
  if (request.temperature) body["temperature"] = *request.temperature;
  if (!request.cache_key.empty()) body["prompt_cache_key"] = request.cache_key;
  if (request.extra_fields.is_object()) body.update(request.extra_fields);
  if (request.structured == StructuredMethod::JsonSchema) {
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema",
         {{"name", "browser_action"}, {"strict", true}, {"schema", action_schema(request.answer_schema)}}}};
  }
  std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  insert_images(text, request, true);
  http::HttpRequest result = http_request(request, "/chat/completions", std::move(text));
  if (!request.api_key.empty()) result.headers.set("Authorization", "Bearer " + request.api_key);
  return result;
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
    reply.prompt_tokens = token_count(usage, "prompt_tokens");
    reply.completion_tokens = token_count(usage, "completion_tokens");
    // https://platform.openai.com/docs/guides/prompt-caching : part of prompt_tokens, not beside them; cache
    // writes (billed from GPT-5.6 on) likewise.
    const Json details = usage.value("prompt_tokens_details", Json());
    reply.cached_tokens = token_count(details, "cached_tokens");
    reply.cache_write_tokens = token_count(details, "cache_write_tokens");
    reply.reasoning_tokens = token_count(usage.value("completion_tokens_details", Json()), "reasoning_tokens");
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
  if (reply.finish_reason == "content_filter") {
    return fail(ErrorKind::Refused, "the provider's content filter stopped the model's reply");
  }
  const auto& content = message.value("content", Json());
  if (content.is_string()) {
    reply.text = content.get<std::string>();
  } else if (content.is_array()) {  // some servers send content parts even in replies
    for (const auto& part : content) {
      if (part.is_object() && part.value("type", "") == "text") reply.text += part.value("text", "");
    }
  }
  // vLLM's and llama.cpp's reasoning_content; Ollama's and OpenRouter's reasoning.
  for (const char* field : {"reasoning_content", "reasoning"}) {
    if (message.contains(field) && message[field].is_string()) reply.reasoning += message[field].get<std::string>();
  }
  if (const auto& calls = message.value("tool_calls", Json()); calls.is_array() && !calls.empty()) {
    reply.text += (reply.text.empty() ? "" : "\n") + tool_calls_text(calls);
  }
  return reply;
}

}  // namespace vimgpt::vision::detail
