// Private to src/vision: one provider-neutral chat request, and each provider's wire format for it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "http/http.h"
#include "vision/vision.h"

namespace vimgpt::vision::detail {

struct ChatRequest {
  Provider provider = Provider::OpenAI;
  std::string base_url;  // without a trailing slash
  std::string api_key;
  std::string model;
  std::string system;
  // The user message's text blocks, then the images. Blocks before `stable_blocks` repeat the previous
  // request's: with `cache_breakpoints` the last of them (and the system prompt) is marked for Anthropic's cache.
  std::vector<std::string> blocks;
  std::size_t stable_blocks = 0;
  const std::vector<EncodedImage>* images = nullptr;  // may be null: a text-only call
  bool cache_breakpoints = false;                     // Anthropic cache_control
  std::string cache_key;                              // OpenAI prompt_cache_key; empty: not sent
  Detail detail = Detail::Auto;
  int max_tokens = 300;
  std::optional<double> temperature;
  bool structured = false;  // send the action schema (response_format / forced tool)
  Milliseconds connect_timeout{10'000};
  Milliseconds total_timeout{120'000};
  std::size_t max_response_bytes = std::size_t{8} * 1024 * 1024;
};

struct ChatReply {
  std::string text;         // the assistant text, or the tool input serialised as JSON
  bool structured = false;  // the text came from a schema-constrained answer
  std::string finish_reason;
  std::int64_t prompt_tokens = 0;  // all of them, cached or not
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t cache_write_tokens = 0;
};

http::HttpRequest build_openai_request(const ChatRequest& request);
Result<ChatReply> parse_openai_response(const http::HttpResponse& response, bool structured);

http::HttpRequest build_anthropic_request(const ChatRequest& request);
Result<ChatReply> parse_anthropic_response(const http::HttpResponse& response);

inline http::HttpRequest build_request(const ChatRequest& request) {
  return request.provider == Provider::Anthropic ? build_anthropic_request(request) : build_openai_request(request);
}

// The name of the forced tool on Anthropic.
inline constexpr const char* kToolName = "browser_action";

}  // namespace vimgpt::vision::detail
