// The libcurl side of the HTTP client: one easy handle per Client, reused so connections stay alive.
// https://curl.se/libcurl/c/libcurl-tutorial.html
#include "http/http.h"
#include "common/text.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <new>
#include <string>

namespace vimgpt::http {
namespace {

// curl_global_init is not thread-safe and must run once before any handle exists.
void ensure_curl_initialised() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct ReceiveState {
  HttpResponse* response = nullptr;
  std::size_t limit = 0;
  bool overflowed = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* state = static_cast<ReceiveState*>(user);
  const std::size_t bytes = size * count;
  if (state->limit != 0 && state->response->body.size() + bytes > state->limit) {
    state->overflowed = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  try {
    state->response->body.append(data, bytes);
  } catch (const std::bad_alloc&) {
    state->overflowed = true;
    return 0;
  }
  return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* state = static_cast<ReceiveState*>(user);
  const std::size_t bytes = size * count;
  const std::string_view line(data, bytes);
  // A new status line starts a new header block (after 100 Continue or a redirect): keep only the last.
  if (line.starts_with("HTTP/")) {
    state->response->headers = Headers{};
    return bytes;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  state->response->headers.add(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  return bytes;
}

// libcurl's progress callback: non-zero aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* stop = static_cast<const std::function<bool()>*>(user);
  return (*stop)() ? 1 : 0;
}

Failure transport_error(CURLcode code, const char* detail, const HttpRequest& request, bool overflowed) {
  if (overflowed) {
    return fail(ErrorKind::Http, "the reply from " + redact(request.url, request) + " exceeded the " +
                                     std::to_string(request.max_response_bytes / 1024) + " KiB limit");
  }
  std::string where = redact(request.url, request);
  std::string why = redact(*detail != '\0' ? detail : curl_easy_strerror(code), request);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return fail(ErrorKind::Timeout, "no complete reply from " + where + " within the time limit (" + why +
                                          "); raise the timeout or check the server");
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return fail(ErrorKind::Network, "cannot resolve the host of " + where + " (" + why + "); check the base URL");
    case CURLE_COULDNT_CONNECT:
      return fail(ErrorKind::Network,
                  "cannot connect to " + where + " (" + why + "); is the server running and the base URL right?");
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return fail(ErrorKind::InvalidArgument, "malformed or unsupported URL " + where + " (" + why + ")");
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR: return fail(ErrorKind::Network, "TLS failure talking to " + where + " (" + why + ")");
    case CURLE_ABORTED_BY_CALLBACK:
      return fail(ErrorKind::Cancelled, "the request to " + where + " was stopped before its reply");
    case CURLE_GOT_NOTHING:
      return fail(ErrorKind::Network, "the server at " + where + " closed the connection without replying");
    default: return fail(ErrorKind::Network, "transport failure talking to " + where + " (" + why + ")");
  }
}

struct SList {
  curl_slist* list = nullptr;
  SList() = default;
  SList(const SList&) = delete;
  SList& operator=(const SList&) = delete;
  ~SList() { curl_slist_free_all(list); }
  bool append(const std::string& line) {
    curl_slist* grown = curl_slist_append(list, line.c_str());
    if (grown == nullptr) return false;
    list = grown;
    return true;
  }
};

struct Mime {
  curl_mime* mime = nullptr;
  Mime() = default;
  Mime(const Mime&) = delete;
  Mime& operator=(const Mime&) = delete;
  ~Mime() { curl_mime_free(mime); }
};

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

Headers::Headers(std::initializer_list<Header> headers) : entries_(headers) {}

void Headers::set(std::string name, std::string value) {
  std::erase_if(entries_, [&](const Header& header) { return iequals(header.name, name); });
  entries_.push_back({std::move(name), std::move(value)});
}

void Headers::add(std::string name, std::string value) {
  entries_.push_back({std::move(name), std::move(value)});
}

std::optional<std::string_view> Headers::get(std::string_view name) const {
  for (const auto& header : entries_) {
    if (iequals(header.name, name)) return std::string_view(header.value);
  }
  return std::nullopt;
}

std::string_view to_string(Method method) {
  switch (method) {
    case Method::Get: return "GET";
    case Method::Post: return "POST";
    case Method::Put: return "PUT";
    case Method::Delete: return "DELETE";
  }
  return "GET";
}

struct Client::Impl {
  std::mutex mutex;
  CURL* easy = nullptr;

  Impl() {
    ensure_curl_initialised();
    easy = curl_easy_init();
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (easy != nullptr) curl_easy_cleanup(easy);
  }
};

Client::Client() : impl_(std::make_unique<Impl>()) {}
Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

Result<HttpResponse> Client::perform(const HttpRequest& request) {
  std::scoped_lock lock(impl_->mutex);
  CURL* easy = impl_->easy;
  if (easy == nullptr) return fail(ErrorKind::Internal, "libcurl could not create a handle");
  // Reset clears options but keeps the connection cache, which is the point of reusing the handle.
  curl_easy_reset(easy);

  if (request.stop && request.stop()) {
    return fail(ErrorKind::Cancelled,
                "the request to " + redact(request.url, request) + " was stopped before it began");
  }
  HttpResponse response;
  ReceiveState state{&response, request.max_response_bytes, false};
  char error_buffer[CURL_ERROR_SIZE] = {};

  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: required with threads
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &state);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);   // an API redirect is a configuration error to show
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "vimgpt/" VIMGPT_VERSION);
  if (request.stop) {
    curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &request.stop);
    curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  }

  SList header_list;
  bool headers_ok = true;
  for (const auto& header : request.headers.entries())
    headers_ok &= header_list.append(header.name + ": " + header.value);
  // curl sends "Expect: 100-continue" for large bodies (our images) and waits up to a second for servers
  // that never answer it; an empty value suppresses it.
  headers_ok &= header_list.append("Expect:");
  if (!headers_ok) return fail(ErrorKind::Internal, "out of memory building request headers");
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, header_list.list);

  Mime mime;
  if (!request.parts.empty()) {
    mime.mime = curl_mime_init(easy);
    for (const auto& part : request.parts) {
      curl_mimepart* field = curl_mime_addpart(mime.mime);
      curl_mime_name(field, part.name.c_str());
      curl_mime_data(field, part.data.data(), part.data.size());
      if (!part.filename.empty()) curl_mime_filename(field, part.filename.c_str());
      if (!part.content_type.empty()) curl_mime_type(field, part.content_type.c_str());
    }
    curl_easy_setopt(easy, CURLOPT_MIMEPOST, mime.mime);
    if (request.method != Method::Post) curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, to_string(request.method).data());
  } else {
    switch (request.method) {
      case Method::Get: curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L); break;
      case Method::Post:
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
        break;
      case Method::Put:
      case Method::Delete:
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, to_string(request.method).data());
        if (!request.body.empty()) {
          curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
          curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
        }
        break;
    }
  }

  const CURLcode code = curl_easy_perform(easy);
  if (code != CURLE_OK) {
    auto failure = transport_error(code, error_buffer, request, state.overflowed);
    // A failed transfer can leave the connection half-used; drop it rather than reuse it.
    curl_easy_cleanup(easy);
    impl_->easy = curl_easy_init();
    return failure;
  }
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

Result<HttpResponse> perform(const HttpRequest& request) {
  Client client;
  return client.perform(request);
}

}  // namespace vimgpt::http
