// A small HTTP client over libcurl for talking to model providers (vision, speech-to-text).
//
// One attempt: perform(). Retries with exponential backoff, jitter and Retry-After: perform_with_retry().
// Any HTTP status is a value (HttpResponse), not an error; only transport failures (refused connection,
// reset, timeout, oversized reply) are errors. check_status() turns a non-2xx response into an error a user
// can act on. Credentials in the request headers never appear in any error message.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base64.h"
#include "common/result.h"

namespace vimgpt::http {

using Milliseconds = std::chrono::milliseconds;

struct Header {
  std::string name;
  std::string value;
};

// An ordered header list with case-insensitive lookup (HTTP field names are case-insensitive, and HTTP/2
// servers send them lower-case).
class Headers {
 public:
  Headers() = default;
  Headers(std::initializer_list<Header> headers);

  // Replaces every header of that name.
  void set(std::string name, std::string value);
  // Appends, keeping any existing header of the same name.
  void add(std::string name, std::string value);
  [[nodiscard]] std::optional<std::string_view> get(std::string_view name) const;
  [[nodiscard]] bool contains(std::string_view name) const { return get(name).has_value(); }
  [[nodiscard]] const std::vector<Header>& entries() const { return entries_; }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

 private:
  std::vector<Header> entries_;
};

bool iequals(std::string_view a, std::string_view b);

enum class Method { Get, Post, Put, Delete };
std::string_view to_string(Method method);

// One part of a multipart/form-data body (e.g. an audio file for a transcription endpoint).
struct MultipartPart {
  std::string name;
  std::string filename;      // empty: a plain form field
  std::string content_type;  // empty: let curl choose
  std::string data;
};

struct HttpRequest {
  Method method = Method::Post;
  std::string url;
  Headers headers;
  std::string body;                  // ignored when `parts` is not empty
  std::vector<MultipartPart> parts;  // non-empty: sent as multipart/form-data
  Milliseconds connect_timeout{10'000};
  Milliseconds total_timeout{120'000};
  // A reply larger than this is cut off and reported, so a misbehaving server cannot exhaust memory.
  std::size_t max_response_bytes = std::size_t{32} * 1024 * 1024;
  // Asked about once a second while the request waits (more often while data moves): true ends it at once as
  // ErrorKind::Cancelled, so a user's Ctrl-C does not wait out a server that holds a request for minutes (a Grid
  // queueing a new session). Empty: the request runs to its reply or its timeout.
  std::function<bool()> stop;
};

struct HttpResponse {
  long status = 0;
  Headers headers;
  std::string body;

  [[nodiscard]] bool ok() const { return status >= 200 && status < 300; }
};

// Keeps connections (and TLS sessions) alive between requests to the same host, which saves a handshake per
// agent step. Thread-safe: concurrent calls on one Client are serialised.
class Client {
 public:
  Client();
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // One attempt. Errors: Network (refused, reset, DNS, TLS, closed without reply), Timeout, Http (reply
  // larger than max_response_bytes), InvalidArgument (malformed URL), Cancelled (request.stop said so).
  Result<HttpResponse> perform(const HttpRequest& request);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One attempt on a fresh connection.
Result<HttpResponse> perform(const HttpRequest& request);

// Statuses worth another try, as the OpenAI and Anthropic SDKs retry: 408, 409 (lock timeout), 429 and every 5xx
// (Anthropic's 529 "overloaded" included). 400/401/403/404 never are.
bool is_retryable_status(long status);
// A response worth another try: the server's x-should-retry ("true"/"false"; not a standard header, but OpenAI
// and Anthropic send it and their SDKs obey it first), else is_retryable_status.
bool is_worth_retrying(const HttpResponse& response);

// Retry-After as seconds ("1", "2.5") or an HTTP date; nullopt when absent or unreadable.
std::optional<Milliseconds> parse_retry_after(std::string_view value);

struct RetryEvent {
  int attempt = 0;       // 1 for the first retry
  Milliseconds delay{};  // how long we wait before it
  std::string reason;    // "HTTP 429", "timeout", ...
};

struct RetryPolicy {
  int max_retries = 4;
  Milliseconds base_delay{500};  // first backoff; tests make it tiny
  Milliseconds max_delay{30'000};
  // A server asking to wait longer than this is not waited for: the last response is returned instead.
  Milliseconds max_retry_after{120'000};
  // Injectable so tests can record the waits instead of sleeping; default std::this_thread::sleep_for.
  std::function<void(Milliseconds)> sleep;
  // Called before each retry (progress output); optional.
  std::function<void(const RetryEvent&)> on_retry;
  // Which responses are retried; default is_worth_retrying. A caller that can read the body sets it to keep,
  // e.g., a quota error (429, but no retry fixes it) from being retried.
  std::function<bool(const HttpResponse&)> retry_if;
};

// The wait before retry number `retry` (1-based): base * 2^(retry-1), capped, with jitter in [half, full]
// so clients that failed together do not retry together. A Retry-After from the server wins when given.
Milliseconds backoff_delay(const RetryPolicy& policy, int retry, std::optional<Milliseconds> retry_after);

// Performs the request, retrying retryable statuses and transport errors (Network, Timeout). Returns the last
// response whatever its status (callers map 400/401/404 to their own messages); a transport error only when
// the last attempt itself failed at the transport level. The message then says how many attempts were made.
Result<HttpResponse> perform_with_retry(Client& client, const HttpRequest& request, const RetryPolicy& policy,
                                        int* attempts_out = nullptr);

// Turns a non-2xx response into an Http error with an actionable message ("the server refused the
// credentials (HTTP 401): check the API key"), including a short, credential-free excerpt of the body.
// `what` names the thing asked for, e.g. "model gpt-4o at https://api.openai.com/v1".
Status check_status(const HttpResponse& response, const HttpRequest& request, std::string_view what);

// Removes credentials carried by `request` (Authorization, x-api-key, api-key and other *key*/*token* header
// values, URL query strings) from `text`, for messages and recordings.
std::string redact(std::string_view text, const HttpRequest& request);

// Standard base64, shared with the rest of the project (common/base64.h).
using vimgpt::base64_decode;
using vimgpt::base64_encode;

}  // namespace vimgpt::http
