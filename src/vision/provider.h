// Private to src/vision: the request rules a model gets (from the catalogue), one provider-neutral chat request,
// each provider's wire format for it, and how each provider's errors are read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/http.h"
#include "vision/vision.h"

namespace vimgpt::vision::detail {

// src/vision/models.json, as embedded at build time (cmake/embed_text.cmake).
std::string_view models_json();

// Which request fields a model gets: the catalogue's entry, or safe defaults for a model it does not know, with
// what the person asked for (--effort, --temperature) where the model takes it.
struct RequestRules {
  Provider provider = Provider::OpenAI;  // resolved: OpenAI, Anthropic, Gemini or Compatible
  ModelApi api = ModelApi::Chat;         // the wire: Chat Completions, Messages, or OpenAI's Responses
  const ModelSpec* spec = nullptr;       // nullptr: not in the catalogue
  std::string token_field = "max_tokens";
  int reasoning_reserve = 0;  // added to max_tokens: reasoning counts against the same cap
  std::string effort;         // reasoning_effort / output_config.effort; empty: not sent
  std::optional<double> temperature;
  std::string thinking;  // Anthropic thinking.type to send ("disabled", "between_tools"); empty: none
  StructuredMethod structured = StructuredMethod::None;
  ImageTokenRule images;
};

// "OpenAI", "Anthropic", "Google": whose API a provider's is, in messages.
std::string provider_name(Provider provider);

// The text from the first '{' to the last '}' (a reply's one JSON object, words around it left out); empty when
// there is none.
inline std::string_view outermost_braces(std::string_view text) {
  const auto open = text.find('{');
  const auto close = text.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  return text.substr(open, close - open + 1);
}

// Whether a text block has nothing but spaces and line ends: the providers refuse such blocks, so none is sent.
inline bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// A token count in a provider's usage object; 0 when it is missing or not a whole number.
inline std::int64_t token_count(const Json& object, const char* name) {
  const auto& value = object.is_object() ? object.value(name, Json()) : Json();
  return value.is_number_integer() ? value.get<std::int64_t>() : std::int64_t{0};
}

// A field of an object a model or its server wrote, when it is a string; else `otherwise`, as if it were missing. Such
// JSON may hold anything anywhere, and nlohmann's value(key, "") throws on a number where a string belongs (`Object`:
// Json, or the ordered JSON a family's template keeps).
template <typename Object>
std::string text_at(const Object& object, const char* key, std::string otherwise = {}) {
  const auto found = object.find(key);  // end() when `object` is no object
  return found != object.end() && found->is_string() ? found->template get<std::string>() : std::move(otherwise);
}

// InvalidArgument for what cannot work (an effort the model does not take, a model retired on its provider's own
// API). `notices` gets what the person should know (one line each).
Result<RequestRules> resolve_rules(const ClientOptions& options, Provider provider, std::vector<std::string>& notices);

// One message of a conversation: its role, its text and, when it carries one, an image (an index into the
// request's images) between `lead` and `text`.
struct Turn {
  Turn(std::string role_, std::string text_, int image_ = -1, std::string lead_ = {})
      : role(std::move(role_)), text(std::move(text_)), image(image_), lead(std::move(lead_)) {}
  std::string role;  // "system", "user", "assistant"
  std::string text;
  int image = -1;
  std::string lead;  // words before the image (Holo's "<observation>"); empty: the image comes first
  // A provider's own tool loop (Anthropic's computer tool): an assistant turn's tool_use blocks, as the model wrote
  // them; a user turn answering them, by their ids (its text and image go into the last one's result).
  Json tool_uses;
  std::vector<std::string> tool_results;
  bool acknowledged = false;  // the calls answered ran with the person's yes to their safety checks
  // The same user turn's parts for a wire that answers in fields (Gemini's functionResponse: {url, output}): the
  // page's address, and what the actions did (`text` holds both, in words).
  std::string url;
  std::string outcome;
};

struct ChatRequest {
  Provider provider = Provider::OpenAI;
  ModelApi api = ModelApi::Chat;  // Responses: OpenAI's /responses instead of /chat/completions
  std::string base_url;           // without a trailing slash
  std::string api_key;
  std::string model;
  std::string system;
  // The user message's text blocks, then the images. Blocks before `stable_blocks` repeat the previous
  // request's: with `cache_breakpoints` the last of them (and the system prompt) is marked for Anthropic's cache.
  // Empty (or blank) blocks are never sent: providers refuse them.
  std::vector<std::string> blocks;
  std::size_t stable_blocks = 0;
  const std::vector<EncodedImage>* images = nullptr;  // may be null: a text-only call
  bool cache_breakpoints = false;                     // Anthropic cache_control
  std::string cache_key;                              // OpenAI prompt_cache_key; empty: not sent
  Detail detail = Detail::Auto;
  std::string token_field = "max_tokens";
  int max_tokens = 300;  // the whole cap, reasoning reserve included
  // A reply starved by its cap (all of it spent reasoning) is asked again with more room; not when the budgets set the
  // cap (StepRequest::max_tokens): the second call would be one they did not pay for.
  bool widen_when_starved = true;
  std::string effort;
  std::optional<double> temperature;
  std::string thinking;
  StructuredMethod structured = StructuredMethod::None;  // send the action schema by this method
  Json answer_schema;  // done's value in that schema (carried_answer_schema); null: the untyped answer
  Milliseconds connect_timeout{10'000};
  Milliseconds total_timeout{120'000};
  std::size_t max_response_bytes = std::size_t{8} * 1024 * 1024;
  // An open family's conversation (dialect.h): sent as these messages instead of `system` and `blocks`.
  std::vector<Turn> turns;
  Json extra_fields;  // added to the body as they are (an open family's Dialect::request_fields); null: none
  std::string beta;   // Anthropic's anthropic-beta header (a computer tool's version); empty: none
};

// The system prompt: a one-message request's, or a conversation's system turn; empty when there is none.
inline std::string system_of(const ChatRequest& request) {
  if (request.turns.empty()) return request.system;
  for (const auto& turn : request.turns) {
    if (turn.role == "system") return turn.text;
  }
  return {};
}

// A field a server refused by name taken out of the request (structure only when `may_drop_structure`); false when
// the request has no such field to take out.
bool drop_field(ChatRequest& request, const std::string& field, bool may_drop_structure);

struct ChatReply {
  std::string text;         // the assistant's text (a tool call a server parsed out of it put back in <tool_call> tags)
  std::string reasoning;    // what the server split off as the model's thinking (reasoning_content, reasoning)
  bool structured = false;  // the text came from a schema-constrained answer
  std::string finish_reason;
  std::int64_t prompt_tokens = 0;  // all of them, cached or not
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  std::int64_t reasoning_tokens = 0;
};

http::HttpRequest build_openai_request(const ChatRequest& request);
Result<ChatReply> parse_openai_response(const http::HttpResponse& response, bool structured);

// A reply that calls a tool carries its content blocks after its text: <tool_use>[the blocks]</tool_use>.
inline constexpr std::string_view kToolUseOpen = "<tool_use>";
inline constexpr std::string_view kToolUseClose = "</tool_use>";

http::HttpRequest build_anthropic_request(const ChatRequest& request);
Result<ChatReply> parse_anthropic_response(const http::HttpResponse& response, bool structured);

http::HttpRequest build_responses_request(const ChatRequest& request);
Result<ChatReply> parse_responses_response(const http::HttpResponse& response, bool structured);

http::HttpRequest build_gemini_request(const ChatRequest& request);
Result<ChatReply> parse_gemini_response(const http::HttpResponse& response);

// Gemini and compatible servers speak OpenAI's Chat Completions; OpenAI's Responses-only models its Responses API;
// Gemini's computer tool Google's native API.
inline http::HttpRequest build_request(const ChatRequest& request) {
  if (request.provider == Provider::Anthropic) return build_anthropic_request(request);
  if (request.api == ModelApi::GenerateContent) return build_gemini_request(request);
  return request.api == ModelApi::Responses ? build_responses_request(request) : build_openai_request(request);
}
inline Result<ChatReply> parse_reply(const ChatRequest& request, const http::HttpResponse& response) {
  const bool structured = request.structured != StructuredMethod::None;
  if (request.provider == Provider::Anthropic) return parse_anthropic_response(response, structured);
  if (request.api == ModelApi::GenerateContent) return parse_gemini_response(response);
  return request.api == ModelApi::Responses ? parse_responses_response(response, structured)
                                            : parse_openai_response(response, structured);
}

// The fields every request shares: URL, timeouts, body, JSON content type.
http::HttpRequest http_request(const ChatRequest& request, std::string_view path, std::string body);
// Images are put into the serialised body after the rest: hundreds of KB that need no escaping.
std::string image_placeholder(std::size_t index);
void insert_images(std::string& body, const ChatRequest& request, bool data_urls);

// A provider's error reply, as both document it: OpenAI {"error": {"message", "type", "param", "code"}},
// Anthropic {"type": "error", "error": {"type", "message"}}.
struct ProviderError {
  long status = 0;
  std::string type;
  std::string code;
  std::string param;
  std::string message;
};
ProviderError read_error(const http::HttpResponse& response);

// A field of the request that the error says the server refused, so that the request can go again without it;
// empty when the error names none. "response_format" / "output_config.format" mean structured output.
std::string refused_field(const ProviderError& error, Provider provider);
// Quota, credit and spend limits: retrying does not help (OpenAI's insufficient_quota codes, Anthropic's billing
// errors and spend limits).
bool is_quota_error(const ProviderError& error);
// The key was refused: a 401, or Google's 400 for a key that is not valid.
bool is_key_error(const ProviderError& error);
// Whether a response is worth another attempt: http::is_worth_retrying (x-should-retry, else 408, 409, 429 and
// every 5xx, as the official SDKs do), but never a quota error.
bool should_retry(const http::HttpResponse& response);
// The error a person can act on for a failed response: the provider's own words (the key never in them), what
// it means and what to change.
Error provider_failure(const http::HttpResponse& response, const http::HttpRequest& request, std::string_view what,
                       Provider provider);

// The price of `model`'s tokens: the flags first, then the catalogue; nullopt when neither knows it.
std::optional<Price> price_for(const ClientOptions& options, std::string_view model);
// What one call's reply says it used, and at `price` what it cost (unknown without one).
Usage usage_of(const ChatReply& reply, const std::optional<Price>& price);

}  // namespace vimgpt::vision::detail
