// OpenAI's Responses API (POST /v1/responses): the only wire of the models OpenAI serves nowhere else (gpt-5.5-pro,
// o3-pro, computer-use-preview: models.json "oai-responses-only"). The request and reply shapes are the official
// SDK's (openai-python src/openai/types/responses at e43b422, read 2026-12-06): response_create_params.py (input,
// instructions, max_output_tokens, reasoning.effort, text.format, prompt_cache_key, store),
// response_input_image_param.py (input_image: image_url a data URL, detail required), response.py (status,
// incomplete_details.reason max_output_tokens | content_filter, output items), response_output_message.py (output_text,
// refusal) and response_usage.py (input_tokens with input_tokens_details.cached_tokens and cache_write_tokens,
// output_tokens with output_tokens_details.reasoning_tokens). Errors are OpenAI's as on Chat Completions.
#include <algorithm>

#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

Json input_image(const ChatRequest& request, std::size_t index) {
  return {{"type", "input_image"}, {"image_url", image_placeholder(index)}, {"detail", to_string(request.detail)}};
}

// A computer tool's calls answered: each computer_call by a computer_call_output with the screenshot (and the safety
// checks it carried, once the person said yes to them), each function_call by its output, then what the actions did
// as the user's words (a computer_call_output has no place for words).
void answer_calls(const Turn& turn, const Json& calls, Json& input) {
  for (const auto& call : calls) {
    const std::string id = call.value("call_id", "");
    if (std::find(turn.tool_results.begin(), turn.tool_results.end(), id) == turn.tool_results.end()) continue;
    if (call.value("type", "") == "function_call") {
      input.push_back({{"type", "function_call_output"}, {"call_id", id}, {"output", turn.text}});
      continue;
    }
    Json output = {{"type", "computer_call_output"}, {"call_id", id}};
    if (turn.image >= 0) {
      output["output"] = {{"type", "computer_screenshot"},
                          {"image_url", image_placeholder(static_cast<std::size_t>(turn.image))}};
    }
    const Json& checks = call.value("pending_safety_checks", Json());
    if (turn.acknowledged && checks.is_array() && !checks.empty()) output["acknowledged_safety_checks"] = checks;
    input.push_back(std::move(output));
  }
  if (!blank(turn.text)) {
    input.push_back({{"role", "user"}, {"content", Json::array({{{"type", "input_text"}, {"text", turn.text}}})}});
  }
}

// The conversation as input items: vimgpt's one user message (its text blocks, then the frames), or an open
// family's turns.
Json input_items(const ChatRequest& request) {
  Json input = Json::array();
  if (request.turns.empty()) {
    Json content = Json::array();
    for (const auto& block : request.blocks) {
      if (!blank(block)) content.push_back({{"type", "input_text"}, {"text", block}});
    }
    const std::size_t image_count = request.images != nullptr ? request.images->size() : 0;
    for (std::size_t i = 0; i < image_count; ++i) content.push_back(input_image(request, i));
    input.push_back({{"role", "user"}, {"content", std::move(content)}});
    return input;
  }
  const Json* calls = nullptr;  // the last assistant turn's output items, which a user turn's results answer
  for (const auto& turn : request.turns) {
    if (turn.role == "assistant" && turn.tool_uses.is_array()) {
      for (const auto& item : turn.tool_uses) input.push_back(item);
      calls = &turn.tool_uses;
      continue;
    }
    if (!turn.tool_results.empty() && calls != nullptr) {
      answer_calls(turn, *calls, input);
      continue;
    }
    if (turn.role != "user" || turn.image < 0) {
      input.push_back({{"role", turn.role}, {"content", turn.text}});
      continue;
    }
    Json content = Json::array();
    if (!turn.lead.empty()) content.push_back({{"type", "input_text"}, {"text", turn.lead}});
    content.push_back(input_image(request, static_cast<std::size_t>(turn.image)));
    if (!blank(turn.text)) content.push_back({{"type", "input_text"}, {"text", turn.text}});
    input.push_back({{"role", "user"}, {"content", std::move(content)}});
  }
  return input;
}

}  // namespace

http::HttpRequest build_responses_request(const ChatRequest& request) {
  // store: false. Every step sends its whole prompt, so nothing is gained by OpenAI keeping the response (which it
  // does by default, for previous_response_id); pages and frames are the person's, kept only where they say.
  Json body = {{"model", request.model}, {"input", input_items(request)}, {"store", false}};
  if (request.turns.empty() && !blank(request.system)) body["instructions"] = request.system;
  // Responses has one cap, visible output and reasoning together.
  body["max_output_tokens"] = request.max_tokens;
  if (!request.effort.empty()) body["reasoning"] = {{"effort", request.effort}};
  if (request.temperature) body["temperature"] = *request.temperature;
  if (!request.cache_key.empty()) body["prompt_cache_key"] = request.cache_key;
  if (request.extra_fields.is_object()) body.update(request.extra_fields);
  if (request.structured == StructuredMethod::JsonSchema) {
    body["text"] = {{"format",
                     {{"type", "json_schema"},
                      {"name", "browser_action"},
                      {"strict", true},
                      {"schema", action_schema(request.answer_schema)}}}};
  }
  std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  insert_images(text, request, true);
  http::HttpRequest result = http_request(request, "/responses", std::move(text));
  if (!request.api_key.empty()) result.headers.set("Authorization", "Bearer " + request.api_key);
  return result;
}

Result<ChatReply> parse_responses_response(const http::HttpResponse& response, bool structured) {
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return fail(ErrorKind::Http, "the server's reply is not a JSON object (HTTP " + std::to_string(response.status) +
                                     "): does the base URL serve OpenAI's Responses API (/responses)?");
  }
  ChatReply reply;
  reply.structured = structured;
  if (const auto& usage = body.value("usage", Json()); usage.is_object()) {
    reply.prompt_tokens = token_count(usage, "input_tokens");  // cached ones included, as on Chat Completions
    reply.completion_tokens = token_count(usage, "output_tokens");
    const Json details = usage.value("input_tokens_details", Json());
    reply.cached_tokens = token_count(details, "cached_tokens");
    reply.cache_write_tokens = token_count(details, "cache_write_tokens");
    reply.reasoning_tokens = token_count(usage.value("output_tokens_details", Json()), "reasoning_tokens");
  }
  const std::string status = body.value("status", Json()).is_string() ? body["status"].get<std::string>() : "";
  if (status == "failed") {
    const Json& error = body.value("error", Json());
    const std::string why = error.is_object() ? error.value("message", "") : "";
    return fail(ErrorKind::Http, "the model's response failed" + (why.empty() ? std::string() : ": " + why));
  }
  if (status != "completed" && status != "incomplete") {
    return fail(ErrorKind::Http, "the model's response ended " +
                                     (status.empty() ? std::string("without a status") : "with status " + status) +
                                     " (HTTP " + std::to_string(response.status) + ")");
  }
  const Json& incomplete = body.value("incomplete_details", Json());
  const std::string reason = incomplete.is_object() && incomplete.value("reason", Json()).is_string()
                                 ? incomplete["reason"].get<std::string>()
                                 : "";
  if (status == "incomplete" && reason == "content_filter") {
    return fail(ErrorKind::Refused, "the provider's content filter stopped the model's reply");
  }
  // "length" as on Chat Completions: a reply that reasoning starved is asked again with more room (client.cpp).
  reply.finish_reason = status == "incomplete" ? "length" : "stop";
  const Json& output = body.value("output", Json());
  if (!output.is_array()) {
    return fail(ErrorKind::Http, "the model's reply has no output (HTTP " + std::to_string(response.status) + ")");
  }
  bool calls = false;
  for (const auto& item : output) {
    if (!item.is_object()) continue;
    const std::string type = item.value("type", "");
    calls |= type == "computer_call" || type == "function_call";
    if (type == "reasoning") {
      for (const auto& part : item.value("summary", Json::array())) {
        if (part.is_object()) reply.reasoning += part.value("text", "");
      }
    } else if (type == "message") {
      for (const auto& part : item.value("content", Json::array())) {
        if (!part.is_object()) continue;
        const std::string kind = part.value("type", "");
        if (kind == "refusal") return fail(ErrorKind::Refused, "the model refused: " + part.value("refusal", ""));
        if (kind == "output_text") reply.text += part.value("text", "");
      }
    }
  }
  // A computer tool's calls: every output item kept as it came (reasoning too), to be read and sent back.
  if (calls) reply.text += std::string(kToolUseOpen) + output.dump() + std::string(kToolUseClose);
  return reply;
}

}  // namespace vimgpt::vision::detail
