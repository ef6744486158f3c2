// Retries, status errors and credential redaction: the policy side of the HTTP client.
#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "common/text.h"
#include "http/http.h"

namespace vimgpt::http {
namespace {

bool is_sensitive_header(std::string_view name) {
  const std::string n = ascii_lower(name);
  return n == "authorization" || n == "proxy-authorization" || n == "cookie" || n.find("key") != std::string::npos ||
         n.find("token") != std::string::npos || n.find("secret") != std::string::npos;
}

void replace_all(std::string& text, std::string_view needle, std::string_view replacement) {
  if (needle.empty()) return;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + replacement.size())) {
    text.replace(at, needle.size(), replacement);
  }
}

double jitter_fraction() {
  // Per-thread engine: no lock, and distinct sequences for clients retrying at the same moment.
  thread_local std::mt19937 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.5, 1.0)(engine);
}

std::optional<Milliseconds> retry_after_of(const HttpResponse& response) {
  // OpenAI sends the finer-grained retry-after-ms alongside Retry-After.
  if (auto ms = response.headers.get("retry-after-ms")) {
    double value = 0;
    auto [end, ec] = std::from_chars(ms->data(), ms->data() + ms->size(), value);
    if (ec == std::errc{} && value >= 0) return Milliseconds(static_cast<long long>(value));
  }
  if (auto header = response.headers.get("retry-after")) return parse_retry_after(*header);
  return std::nullopt;
}

// The provider's own explanation, when the body is the usual {"error": {"message": ...}} shape.
std::string body_excerpt(const HttpResponse& response, const HttpRequest& request) {
  std::string text;
  try {
    auto body = nlohmann::json::parse(response.body);
    if (body.is_object() && body.contains("error")) {
      const auto& error = body["error"];
      if (error.is_object() && error.contains("message") && error["message"].is_string()) {
        text = error["message"].get<std::string>();
      } else if (error.is_string()) {
        text = error.get<std::string>();
      }
    } else if (body.is_object() && body.contains("message") && body["message"].is_string()) {
      text = body["message"].get<std::string>();
    }
  } catch (const nlohmann::json::exception&) {
    // not JSON: fall through to the raw body
  }
  if (text.empty()) text = response.body;
  constexpr std::size_t kMaxExcerpt = 300;
  if (text.size() > kMaxExcerpt) text = text.substr(0, kMaxExcerpt) + "...";
  std::replace(text.begin(), text.end(), '\n', ' ');
  return redact(text, request);
}

}  // namespace

bool is_retryable_status(long status) {
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

bool is_worth_retrying(const HttpResponse& response) {
  if (const auto header = response.headers.get("x-should-retry")) {
    if (*header == "true") return true;
    if (*header == "false") return false;
  }
  return is_retryable_status(response.status);
}

std::optional<Milliseconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  double seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec == std::errc{} && end == value.data() + value.size()) {
    if (seconds < 0 || !std::isfinite(seconds)) return std::nullopt;
    return Milliseconds(static_cast<long long>(seconds * 1000.0));
  }
  const std::string date(value);
  const time_t when = curl_getdate(date.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  const time_t now = std::time(nullptr);
  return Milliseconds(std::max<long long>(0, static_cast<long long>(when - now) * 1000));
}

Milliseconds backoff_delay(const RetryPolicy& policy, int retry, std::optional<Milliseconds> retry_after) {
  if (retry_after) return *retry_after;
  const int exponent = std::clamp(retry - 1, 0, 30);
  const double full = std::min(static_cast<double>(policy.base_delay.count()) * std::pow(2.0, exponent),
                               static_cast<double>(policy.max_delay.count()));
  return Milliseconds(static_cast<long long>(full * jitter_fraction()));
}

Result<HttpResponse> perform_with_retry(Client& client, const HttpRequest& request, const RetryPolicy& policy,
                                        int* attempts_out) {
  const auto sleep = policy.sleep ? policy.sleep : [](Milliseconds ms) { std::this_thread::sleep_for(ms); };
  int attempt = 0;
  while (true) {
    ++attempt;
    if (attempts_out != nullptr) *attempts_out = attempt;
    auto result = client.perform(request);
    std::optional<Milliseconds> retry_after;
    std::string reason;
    if (result) {
      if (result->ok() || !(policy.retry_if ? policy.retry_if(*result) : is_worth_retrying(*result))) return result;
      retry_after = retry_after_of(*result);
      reason = "HTTP " + std::to_string(result->status);
      if (retry_after && *retry_after > policy.max_retry_after) return result;
    } else {
      const ErrorKind kind = result.error().kind;
      if (kind != ErrorKind::Network && kind != ErrorKind::Timeout) return result;
      reason = std::string(to_string(kind));
    }
    if (attempt > policy.max_retries) {
      if (!result && attempt > 1) {
        Error error = result.error();
        error.message += " (after " + std::to_string(attempt) + " attempts)";
        return fail(std::move(error));
      }
      return result;
    }
    const Milliseconds delay = backoff_delay(policy, attempt, retry_after);
    if (policy.on_retry) policy.on_retry(RetryEvent{attempt, delay, reason});
    sleep(delay);
  }
}

Status check_status(const HttpResponse& response, const HttpRequest& request, std::string_view what) {
  if (response.ok()) return ok();
  const std::string status = "HTTP " + std::to_string(response.status);
  const std::string target = redact(what, request);
  const std::string detail = body_excerpt(response, request);
  const std::string said = detail.empty() ? "" : " The server said: " + detail;
  std::string message;
  switch (response.status) {
    case 400: message = "the server rejected the request for " + target + " (" + status + ")."; break;
    case 401: message = "the API key was refused by " + target + " (" + status + "): check the key."; break;
    case 403:
      message = "access to " + target + " is forbidden (" + status + "): the key lacks permission for it.";
      break;
    case 404: message = target + " was not found (" + status + "): check the base URL and model name."; break;
    case 413: message = "the request to " + target + " is too large (" + status + "): lower the image size."; break;
    case 429:
      message = "rate limited by " + target + " (" + status + ") even after retries: wait and try again.";
      break;
    default:
      if (response.status >= 500) {
        message = "server error from " + target + " (" + status + ") even after retries.";
      } else if (response.status >= 300 && response.status < 400) {
        const auto location = response.headers.get("location");
        message = target + " redirected (" + status + ")" +
                  (location ? " to " + redact(*location, request) : std::string()) + ": check the base URL.";
      } else {
        message = "unexpected " + status + " from " + target + ".";
      }
  }
  return fail(ErrorKind::Http, message + said);
}

std::string redact(std::string_view text, const HttpRequest& request) {
  std::string out(text);
  for (const auto& header : request.headers.entries()) {
    if (!is_sensitive_header(header.name)) continue;
    std::string_view value = header.value;
    replace_all(out, value, "[redacted]");
    // "Bearer sk-..." : the token alone may be echoed back too.
    if (auto space = value.find(' '); space != std::string_view::npos) {
      std::string_view token = value.substr(space + 1);
      if (token.size() >= 4) replace_all(out, token, "[redacted]");
    }
  }
  if (auto query = request.url.find('?'); query != std::string::npos) {
    replace_all(out, std::string_view(request.url).substr(query + 1), "[redacted]");
  }
  return out;
}

}  // namespace vimgpt::http
