// Google's native Gemini API (POST {base}/models/{model}:generateContent, key in x-goog-api-key): the wire of Gemini's
// computer_use tool, which Google's OpenAI-compatible endpoint (the labels mode's wire) does not carry. The shapes are
// the official SDK's (googleapis/js-genai src/types.ts at 6e9b35c, read 2026-12-06: Content {role user | model, parts},
// Part {text, thought, thoughtSignature, inlineData {mimeType, data}, functionCall {name, args, id},
// functionResponse {name, response, parts: [{inlineData}]}}, systemInstruction, generationConfig {maxOutputTokens,
// temperature, thinkingConfig {thinkingLevel LOW | MEDIUM | HIGH}}, candidates[].finishReason (STOP, MAX_TOKENS,
// SAFETY, MALFORMED_FUNCTION_CALL, ...), promptFeedback.blockReason, usageMetadata {promptTokenCount,
// candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount}); the loop is Google's reference agent's
// (google-gemini/computer-use-preview agent.py at c93bb2d, 2026-06-24: the model's content sent back as it came,
// each call answered by a functionResponse holding {url} and the screenshot, safety_acknowledgement "true" once the
// person confirmed). Errors are Google's {"error": {"code", "message", "status"}}, read as on its other endpoint.
#include <algorithm>
#include <array>
#include <cctype>

#include "vision/provider.h"

namespace vimgpt::vision::detail {
namespace {

Json inline_image(const ChatRequest& request, std::size_t index) {
  return {{"inlineData", {{"mimeType", (*request.images)[index].mime()}, {"data", image_placeholder(index)}}}};
}

// The previous model turn's calls answered, in its order: each by a functionResponse with the page's address (and
// the safety acknowledgement its call asked for, once the person said yes), the last with what the actions did and
// the screenshot after them.
Json answer_calls(const ChatRequest& request, const Turn& turn, const Json& model_parts) {
  std::vector<const Json*> calls;
  for (const auto& part : model_parts) {
    if (part.is_object() && part.value("functionCall", Json()).is_object()) calls.push_back(&part["functionCall"]);
  }
  Json parts = Json::array();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Json& call = *calls[i];
    Json response = {{"url", turn.url}};
    const Json& args = call.value("args", Json::object());
    if (turn.acknowledged && args.is_object() && args.contains("safety_decision")) {
      response["safety_acknowledgement"] = "true";
    }
    Json answer = {{"name", call.value("name", "")}, {"response", std::move(response)}};
    if (call.contains("id")) answer["id"] = call["id"];
    if (i + 1 == calls.size()) {
      if (!blank(turn.outcome)) answer["response"]["output"] = turn.outcome;
      if (turn.image >= 0) answer["parts"] = Json::array({inline_image(request, static_cast<std::size_t>(turn.image))});
    }
    parts.push_back({{"functionResponse", std::move(answer)}});
  }
  return parts;
}

// The conversation as contents: vimgpt's one user message (its text blocks, then the frames), or a tool loop's turns
// (the system turn goes to systemInstruction).
Json contents_of(const ChatRequest& request) {
  Json contents = Json::array();
  if (request.turns.empty()) {
    Json parts = Json::array();
    for (const auto& block : request.blocks) {
      if (!blank(block)) parts.push_back({{"text", block}});
    }
    const std::size_t image_count = request.images != nullptr ? request.images->size() : 0;
    for (std::size_t i = 0; i < image_count; ++i) parts.push_back(inline_image(request, i));
    contents.push_back({{"role", "user"}, {"parts", std::move(parts)}});
    return contents;
  }
  const Json* model_parts = nullptr;  // the last model turn's parts, which a user turn's responses answer
  for (const auto& turn : request.turns) {
    if (turn.role == "system") continue;
    if (turn.role == "assistant") {
      const bool called = turn.tool_uses.is_array();
      contents.push_back(
          {{"role", "model"}, {"parts", called ? turn.tool_uses : Json::array({{{"text", turn.text}}})}});
      model_parts = called ? &turn.tool_uses : nullptr;
      continue;
    }
    if (!turn.tool_results.empty() && model_parts != nullptr) {
      contents.push_back({{"role", "user"}, {"parts", answer_calls(request, turn, *model_parts)}});
      continue;
    }
    Json parts = Json::array();
    if (!blank(turn.text)) parts.push_back({{"text", turn.text}});
    if (turn.image >= 0) parts.push_back(inline_image(request, static_cast<std::size_t>(turn.image)));
    contents.push_back({{"role", "user"}, {"parts", std::move(parts)}});
  }
  return contents;
}

// The native API's address from the base URL: Google's OpenAI-compatible base (…/v1beta/openai, vimgpt's default for
// Gemini) without its /openai.
std::string native_base(std::string base) {
  if (base.ends_with("/openai")) base.resize(base.size() - 7);
  return base;
}

// Finish reasons that mean Google's filters stopped the reply (FinishReason in the SDK's types).
constexpr std::array<std::string_view, 7> kFiltered = {"SAFETY", "RECITATION",   "BLOCKLIST", "PROHIBITED_CONTENT",
                                                       "SPII",   "IMAGE_SAFETY", "LANGUAGE"};

}  // namespace

http::HttpRequest build_gemini_request(const ChatRequest& request) {
  Json body = {{"contents", contents_of(request)}};
  if (const std::string system = system_of(request); !blank(system)) {
    body["systemInstruction"] = {{"parts", Json::array({{{"text", system}}})}};
  }
  // One cap, thinking and answer together.
  Json generation = {{"maxOutputTokens", request.max_tokens}};
  if (!request.effort.empty()) {
    std::string level = request.effort;
    std::transform(level.begin(), level.end(), level.begin(), [](unsigned char c) { return std::toupper(c); });
    generation["thinkingConfig"] = {{"thinkingLevel", level}};
  }
  if (request.temperature) generation["temperature"] = *request.temperature;
  body["generationConfig"] = std::move(generation);
  if (request.extra_fields.is_object()) body.update(request.extra_fields);
  std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  insert_images(text, request, false);
  http::HttpRequest result = http_request(request, "", std::move(text));
  result.url = native_base(request.base_url) + "/models/" + request.model + ":generateContent";
  if (!request.api_key.empty()) result.headers.set("x-goog-api-key", request.api_key);
  return result;
}

Result<ChatReply> parse_gemini_response(const http::HttpResponse& response) {
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return fail(ErrorKind::Http, "the server's reply is not a JSON object (HTTP " + std::to_string(response.status) +
                                     "): does the base URL serve Google's Gemini API (models/MODEL:generateContent)?");
  }
  ChatReply reply;
  if (const auto& usage = body.value("usageMetadata", Json()); usage.is_object()) {
    reply.prompt_tokens = token_count(usage, "promptTokenCount");  // cached ones included
    reply.reasoning_tokens = token_count(usage, "thoughtsTokenCount");
    // Thoughts are billed as output but counted apart from the candidates' tokens.
    reply.completion_tokens = token_count(usage, "candidatesTokenCount") + reply.reasoning_tokens;
    reply.cached_tokens = token_count(usage, "cachedContentTokenCount");
  }
  const Json& candidates = body.value("candidates", Json());
  if (!candidates.is_array() || candidates.empty() || !candidates[0].is_object()) {
    const Json& feedback = body.value("promptFeedback", Json());
    const std::string blocked = feedback.is_object() ? feedback.value("blockReason", "") : "";
    if (!blocked.empty()) return fail(ErrorKind::Refused, "Google blocked the request (" + blocked + ")");
    return fail(ErrorKind::Http, "the model's reply has no candidates (HTTP " + std::to_string(response.status) + ")");
  }
  const Json& candidate = candidates[0];
  const std::string finish = candidate.value("finishReason", "");
  if (std::find(kFiltered.begin(), kFiltered.end(), finish) != kFiltered.end()) {
    return fail(ErrorKind::Refused, "Google's filters stopped the model's reply (" + finish + ")");
  }
  // "length" as on the other wires: a reply that thinking starved is asked again with more room (client.cpp). A call
  // Google could not read (MALFORMED_FUNCTION_CALL) comes with no parts: the step fails and the model is asked again.
  reply.finish_reason = finish == "MAX_TOKENS" ? "length" : finish == "STOP" || finish.empty() ? "stop" : finish;
  const Json& content = candidate.value("content", Json());
  const Json& parts = content.is_object() ? content.value("parts", Json()) : Json();
  bool calls = false;
  for (const auto& part : parts.is_array() ? parts : Json::array()) {
    if (!part.is_object()) continue;
    calls |= part.value("functionCall", Json()).is_object();
    const Json& text = part.value("text", Json());
    if (!text.is_string()) continue;
    (part.value("thought", false) ? reply.reasoning : reply.text) += text.get<std::string>();
  }
  // A computer tool's calls: the parts kept as they came (their thought signatures too), to be read and sent back.
  if (calls) reply.text += std::string(kToolUseOpen) + parts.dump() + std::string(kToolUseClose);
  return reply;
}

}  // namespace vimgpt::vision::detail
