// Remote-browser URLs, bounded network phases, and resolving http://HOST:PORT through /json/version.
#include "wire/net_link.h"

#include <boost/beast/http.hpp>
#include <charconv>
#include <nlohmann/json.hpp>

#include "wire/wire.h"

namespace vimgpt::wire {
namespace link {

namespace http = beast::http;

std::string Endpoint::host_header() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + port;
}

Result<Endpoint> parse_endpoint(std::string_view url) {
  Endpoint endpoint;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return fail(ErrorKind::InvalidArgument,
                "a browser URL starts with ws://, wss://, http:// or https://, not '" + std::string(url) + "'");
  }
  const std::string_view scheme = url.substr(0, scheme_end);
  if (scheme == "ws") {
    endpoint.scheme = Scheme::Ws;
  } else if (scheme == "wss") {
    endpoint.scheme = Scheme::Wss;
  } else if (scheme == "http") {
    endpoint.scheme = Scheme::Http;
  } else if (scheme == "https") {
    endpoint.scheme = Scheme::Https;
  } else {
    return fail(ErrorKind::InvalidArgument,
                "unsupported browser URL scheme '" + std::string(scheme) + "' (use ws, wss, http or https)");
  }
  std::string_view rest = url.substr(scheme_end + 3);
  const auto path_start = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_start);
  endpoint.target = path_start == std::string_view::npos ? "/" : std::string(rest.substr(path_start));
  if (endpoint.target.front() == '?') endpoint.target.insert(0, "/");
  if (authority.find('@') != std::string_view::npos) {
    return fail(ErrorKind::InvalidArgument, "credentials in a browser URL are not supported: " + std::string(url));
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [::1]:9222
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return fail(ErrorKind::InvalidArgument, "unclosed '[' in " + std::string(url));
    endpoint.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      return fail(ErrorKind::InvalidArgument, "unexpected text after ']' in " + std::string(url));
    }
    if (!after.empty()) port = after.substr(1);
  } else {
    const auto colon = authority.rfind(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (endpoint.host.empty()) return fail(ErrorKind::InvalidArgument, "no host in browser URL " + std::string(url));
  if (port.empty()) {
    endpoint.port = endpoint.tls() ? "443" : "80";
  } else {
    int number = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (error != std::errc() || end != port.data() + port.size() || number < 1 || number > 65535) {
      return fail(ErrorKind::InvalidArgument, "bad port '" + std::string(port) + "' in " + std::string(url));
    }
    endpoint.port = std::string(port);
  }
  return endpoint;
}

Status await(net::io_context& ioc, const bool& done, milliseconds timeout, const std::function<void()>& abort,
             std::string_view phase) {
  ioc.restart();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    ioc.run_one_until(deadline);
  }
  if (done) return ok();
  abort();
  ioc.restart();
  ioc.run();  // the aborted operation's handler runs now, while what it refers to still exists
  return fail(ErrorKind::Timeout, std::string(phase) + " took longer than " + std::to_string(timeout.count()) + " ms");
}

Status check(const beast::error_code& ec, ErrorKind kind, std::string_view phase) {
  if (!ec) return ok();
  return fail(kind, std::string(phase) + " failed: " + ec.message());
}

ssl::context make_tls_context() {
  ssl::context context(ssl::context::tls_client);
  context.set_default_verify_paths();
  context.set_verify_mode(ssl::verify_peer);
  return context;
}

namespace {

template <typename Stream>
Result<HttpReply> get_on(net::io_context& ioc, Stream& stream, const Endpoint& endpoint, const Headers& headers,
                         milliseconds timeout) {
  VIMGPT_TRY_VOID(connect(ioc, stream, endpoint, timeout));
  auto& socket_layer = beast::get_lowest_layer(stream);
  http::request<http::empty_body> request{http::verb::get, endpoint.target, 11};
  request.set(http::field::host, endpoint.host_header());
  request.set(http::field::user_agent, "vimgpt");
  for (const auto& [name, value] : headers) request.set(name, value);
  http::response<http::string_body> response;
  beast::flat_buffer buffer;
  beast::error_code ec;
  bool done = false;
  const std::string what = "GET " + endpoint.host_header() + endpoint.target;
  http::async_write(stream, request, [&](beast::error_code e, std::size_t) {
    if (e) {
      ec = e;
      done = true;
      return;
    }
    http::async_read(stream, buffer, response, [&](beast::error_code e2, std::size_t) {
      ec = e2;
      done = true;
    });
  });
  VIMGPT_TRY_VOID(await(
      ioc, done, timeout, [&] { socket_layer.socket().close(); }, what));
  VIMGPT_TRY_VOID(check(ec, ErrorKind::Network, what));
  return HttpReply{static_cast<int>(response.result_int()), std::move(response.body())};
}

}  // namespace

Result<HttpReply> get(const Endpoint& endpoint, const Headers& headers, milliseconds timeout) {
  net::io_context ioc;
  const std::string where = endpoint.host_header() + endpoint.target;
  try {
    if (endpoint.tls()) {
      auto context = make_tls_context();
      beast::ssl_stream<beast::tcp_stream> stream(ioc, context);
      return get_on(ioc, stream, endpoint, headers, timeout);
    }
    beast::tcp_stream stream(ioc);
    return get_on(ioc, stream, endpoint, headers, timeout);
  } catch (const std::exception& e) {  // Asio and OpenSSL report some setup failures by throwing
    return fail(ErrorKind::Network, "asking " + where + ": " + e.what());
  }
}

}  // namespace link

Result<std::string> resolve_browser_url(std::string_view http_or_ws_url, milliseconds timeout) {
  return resolve_browser_url(http_or_ws_url, {}, timeout);
}

Result<std::string> resolve_browser_url(std::string_view http_or_ws_url, const link::Headers& headers,
                                        milliseconds timeout) {
  VIMGPT_TRY(link::Endpoint endpoint, link::parse_endpoint(http_or_ws_url));
  if (endpoint.scheme == link::Scheme::Ws || endpoint.scheme == link::Scheme::Wss) return std::string(http_or_ws_url);
  // Whatever path was given, the browser-level WebSocket is announced by /json/version; the query stays, since
  // fleets such as browserless take their token (and options such as timeout) there.
  const auto query_at = endpoint.target.find('?');
  const std::string query = query_at == std::string::npos ? "" : endpoint.target.substr(query_at);
  endpoint.target = "/json/version" + query;
  VIMGPT_TRY(link::HttpReply reply, link::get(endpoint, headers, timeout));
  const std::string what = "GET " + endpoint.host_header() + endpoint.target;
  if (reply.status != 200) {
    std::string hint;
    if (reply.status == 404) hint = " (a Selenium Grid? use --browser webdriver+" + std::string(http_or_ws_url) + ")";
    if (reply.status == 401 || reply.status == 403) hint = " (does the endpoint want a token in the URL, ?token=...?)";
    return fail(ErrorKind::Protocol,
                what + " answered HTTP " + std::to_string(reply.status) + hint + ": " + reply.body.substr(0, 200));
  }
  const Json version = Json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (!version.is_object() || !version.contains("webSocketDebuggerUrl") ||
      !version["webSocketDebuggerUrl"].is_string()) {
    return fail(ErrorKind::Protocol,
                std::string(http_or_ws_url) + "/json/version has no webSocketDebuggerUrl (is it a DevTools endpoint?)");
  }
  std::string announced = version["webSocketDebuggerUrl"].get<std::string>();
  // browserless announces its socket without the token it was asked with: carry the query over.
  if (!query.empty() && announced.find('?') == std::string::npos) announced += query;
  return announced;
}

}  // namespace vimgpt::wire
