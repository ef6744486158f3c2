// Anthropic Messages API: https://docs.anthropic.com/en/api/messages
// Structured output is output_config.format (a JSON schema; the answer comes back as a text block), never a
// forced tool: current models refuse tool_choice "tool" (Opus 5.5, Sonnet 5.5, Fable 5.1 on), and thinking,
// on by default on every 5.x model, refuses it on the rest. The images come after the text, against Anthropic's
// advice to put them first: the text begins with what every step's request shares, and only a shared beginning
// is cached (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

// The SDKs' base URL has no /v1 (https://api.anthropic.com, ANTHROPIC_BASE_URL); vimgpt's earlier form had it.
std::string messages_path(std::string_view base_url) {
  return base_url.ends_with("/v1") ? "/messages" : "/v1/messages";
}

Json image_block(const ChatRequest& request, int index) {
  const auto at = static_cast<std::size_t>(index);
  return {
      {"type", "image"},
      {"source", {{"type", "base64"}, {"media_type", (*request.images)[at].mime()}, {"data", image_placeholder(at)}}}};
}

// The toolset a tool_use block's member belongs to (Anthropic's computer toolset: "computer"); empty for a tool of
// its own. Its tool_result must name the same.
std::string toolset_of(const Json& tool_uses, const std::string& id) {
  for (const auto& block : tool_uses.is_array() ? tool_uses : Json::array()) {
    if (text_at(block, "id") == id) return text_at(block, "toolset_name");
  }
  return {};
}

// A tool loop's conversation (Anthropic's computer tool): each assistant turn's tool_use blocks as the model wrote
// them, each user turn after them a tool_result per block, in their order, the turn's words and screenshot in the
// last ("each tool_use must be followed by its tool_result" in the next user message). Only the tool and the system
// prompt are cached: the conversation drops its oldest screenshot at every step, so no longer beginning repeats.
Json tool_conversation(const ChatRequest& request) {
  Json messages = Json::array();
  const Json* previous_uses = nullptr;
  for (const auto& turn : request.turns) {
    if (turn.role == "system") continue;
    Json content = Json::array();
    if (!blank(turn.text) && turn.tool_results.empty()) content.push_back({{"type", "text"}, {"text", turn.text}});
    if (turn.image >= 0 && turn.tool_results.empty()) content.push_back(image_block(request, turn.image));
    if (turn.tool_uses.is_array()) {
      for (const auto& block : turn.tool_uses) content.push_back(block);
    }
    for (std::size_t i = 0; i < turn.tool_results.size(); ++i) {
      Json result = {{"type", "tool_result"}, {"tool_use_id", turn.tool_results[i]}};
      if (previous_uses != nullptr) {
        if (std::string toolset = toolset_of(*previous_uses, turn.tool_results[i]); !toolset.empty()) {
          result["toolset_name"] = std::move(toolset);
        }
      }
      Json inner = Json::array();
      const bool last = i + 1 == turn.tool_results.size();
      const std::string words = last ? turn.text : "what came of this turn's calls is in the last one's result";
      if (!blank(words)) inner.push_back({{"type", "text"}, {"text", words}});
      if (last && turn.image >= 0) inner.push_back(image_block(request, turn.image));
      result["content"] = std::move(inner);
      content.push_back(std::move(result));
    }
    if (turn.role == "assistant") previous_uses = &turn.tool_uses;
    messages.push_back({{"role", turn.role}, {"content", std::move(content)}});
  }
  return messages;
}

}  // namespace

http::HttpRequest build_anthropic_request(const ChatRequest& request) {
  const Json breakpoint = {{"type", "ephemeral"}};
  Json content = Json::array();
  // "text content blocks must be non-empty" (and not blank): an empty block is left out, and a breakpoint meant
  // for it goes on the last block sent before it.
  for (std::size_t i = 0; i < request.blocks.size(); ++i) {
    if (!blank(request.blocks[i])) content.push_back({{"type", "text"}, {"text", request.blocks[i]}});
    if (request.cache_breakpoints && i + 1 == request.stable_blocks && !content.empty()) {
      content.back()["cache_control"] = breakpoint;
    }
  }
  const std::size_t image_count = request.images != nullptr ? request.images->size() : 0;
  for (std::size_t i = 0; i < image_count && request.turns.empty(); ++i) {
    content.push_back(image_block(request, static_cast<int>(i)));
  }
  Json system = system_of(request);
  if (request.cache_breakpoints) {
    // The schema and the system prompt are the same for every run: a breakpoint here serves other runs too.
    system = Json::array({{{"type", "text"}, {"text", system}, {"cache_control", breakpoint}}});
  }
  Json body = {{"model", request.model},
               {request.token_field, request.max_tokens},
               {"system", std::move(system)},
               {"messages", request.turns.empty() ? Json::array({{{"role", "user"}, {"content", std::move(content)}}})
                                                  : tool_conversation(request)}};
  if (request.extra_fields.is_object()) body.update(request.extra_fields);
  if (request.temperature) body["temperature"] = *request.temperature;
  if (!request.thinking.empty()) body["thinking"] = {{"type", request.thinking}};
  Json output_config = Json::object();
  if (!request.effort.empty()) output_config["effort"] = request.effort;
  if (request.structured == StructuredMethod::OutputConfig) {
    output_config["format"] = {{"type", "json_schema"}, {"schema", action_schema(request.answer_schema)}};
  }
  if (!output_config.empty()) body["output_config"] = std::move(output_config);
  std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  // The images are the last blocks of "messages", and what serialises after it ("output_config", "system",
  // "temperature", "thinking") is ours: searched from the end, user text cannot shadow a placeholder.
  insert_images(text, request, false);
  http::HttpRequest result = http_request(request, messages_path(request.base_url), std::move(text));
  result.headers.set("anthropic-version", "2023-06-01");
  if (!request.beta.empty()) result.headers.set("anthropic-beta", request.beta);
  if (!request.api_key.empty()) result.headers.set("x-api-key", request.api_key);
  return result;
}

Result<ChatReply> parse_anthropic_response(const http::HttpResponse& response, bool structured) {
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return fail(ErrorKind::Http, "the server's reply is not a JSON object (HTTP " + std::to_string(response.status) +
                                     "): is the base URL the Anthropic API?");
  }
  ChatReply reply;
  reply.structured = structured;
  if (const auto& usage = body.value("usage", Json()); usage.is_object()) {
    // input_tokens counts only what follows the last cache breakpoint; the cached and written tokens come
    // beside it: https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
    reply.cached_tokens = token_count(usage, "cache_read_input_tokens");
    reply.cache_write_tokens = token_count(usage, "cache_creation_input_tokens");
    reply.prompt_tokens = token_count(usage, "input_tokens") + reply.cached_tokens + reply.cache_write_tokens;
    reply.completion_tokens = token_count(usage, "output_tokens");
    reply.reasoning_tokens = token_count(usage.value("output_tokens_details", Json()), "thinking_tokens");
  }
  const std::string stop = text_at(body, "stop_reason");
  if (stop == "refusal") {
    const auto& details = body.value("stop_details", Json());
    const std::string why = details.is_object() && details.value("explanation", Json()).is_string()
                                ? ": " + details["explanation"].get<std::string>()
                                : std::string();
    return fail(ErrorKind::Refused, "the model refused to answer (stop_reason refusal)" + why);
  }
  if (stop == "model_context_window_exceeded") {
    return fail(ErrorKind::InvalidArgument,
                "the request is longer than the model's context window: lower --history or --frames");
  }
  reply.finish_reason = stop == "max_tokens" ? "length" : stop;
  const auto& content = body.value("content", Json());
  if (!content.is_array()) {
    return fail(ErrorKind::Http,
                "the model's reply contained no content (HTTP " + std::to_string(response.status) + ")");
  }
  // Read by type: thinking blocks (their text empty by default) may come first. A reply that calls a tool keeps
  // all its blocks as the model wrote them (thinking and its signature too), in tags after the text: the tool loop
  // reads the calls there and sends the blocks back as the model's turn, as the API requires.
  bool calls = false;
  for (const auto& block : content) {
    if (!block.is_object()) continue;
    if (text_at(block, "type") == "text") reply.text += text_at(block, "text");
    calls |= text_at(block, "type") == "tool_use";
  }
  if (calls) reply.text += std::string(kToolUseOpen) + content.dump() + std::string(kToolUseClose);
  if (content.empty() && reply.finish_reason != "length") {
    return fail(ErrorKind::Http,
                "the model's reply contained no content (HTTP " + std::to_string(response.status) + ")");
  }
  return reply;
}

}  // namespace vimgpt::vision::detail
