// Browsers from a WebDriver server (Selenium Grid 4, or any W3C WebDriver server): a session opened and ended over
// W3C WebDriver ("New Session": POST /session {"capabilities": {"alwaysMatch": ...}}; "Delete Session":
// DELETE /session/ID), everything between over the session's socket: for Chromium the CDP socket Grid proxies at
// /session/ID/se/cdp, which is browser-level, so browser contexts work as on a local Chromium; for Firefox the
// WebDriver BiDi socket a session asked with "webSocketUrl": true announces (https://w3c.github.io/webdriver-bidi/,
// "Establishing a Connection"; Grid proxies it at /session/ID/se/bidi), on which the session already exists.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>

#include "common/base64.h"
#include "common/duration.h"
#include "fleet/fleet.h"
#include "http/http.h"

namespace vimgpt::fleet {
namespace {

constexpr std::string_view kWebDriverScheme = "webdriver+";

// scheme://[USER:PASSWORD@]HOST[:PORT]/REST, split; an IPv6 host keeps its brackets.
struct UrlParts {
  std::string scheme;
  std::string credentials;
  std::string host;
  std::string port;
  std::string rest;  // from the first '/' or '?', possibly empty

  [[nodiscard]] bool tls() const { return scheme == "https" || scheme == "wss"; }
  [[nodiscard]] std::string authority() const { return host + (port.empty() ? "" : ":" + port); }
};

Result<UrlParts> split_url(std::string_view url) {
  UrlParts parts;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return fail(ErrorKind::InvalidArgument, "not a URL: '" + std::string(url) + "'");
  }
  parts.scheme = std::string(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  const auto rest_start = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, rest_start);
  parts.rest = rest_start == std::string_view::npos ? "" : std::string(rest.substr(rest_start));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    parts.credentials = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  const auto bracket = authority.rfind(']');
  const auto colon = authority.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    parts.port = std::string(authority.substr(colon + 1));
    authority = authority.substr(0, colon);
  }
  parts.host = std::string(authority);
  if (parts.host.empty()) return fail(ErrorKind::InvalidArgument, "no host in '" + std::string(url) + "'");
  return parts;
}

bool names_this_machine(const std::string& host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host == "0.0.0.0" || host == "[::]";
}

// A WebDriver error reply's words ({"value": {"error", "message"}}), or the start of the body.
std::string webdriver_error(const http::HttpResponse& reply) {
  const Json body = Json::parse(reply.body, nullptr, false);
  if (body.is_object() && body.contains("value") && body["value"].is_object()) {
    const Json& value = body["value"];
    std::string words = value.value("error", "");
    if (value.contains("message") && value["message"].is_string()) {
      // Grid's messages carry build and system information after the first lines.
      std::string message = value["message"].get<std::string>();
      message = message.substr(0, message.find("\nBuild info"));
      words += (words.empty() ? "" : ": ") + message.substr(0, 400);
    }
    if (!words.empty()) return words;
  }
  return "HTTP " + std::to_string(reply.status) + ": " + reply.body.substr(0, 200);
}

// default_webdriver_capabilities() with the caller's merged in (JSON merge patch), except Chromium's arguments:
// the caller's join ours (a patch would replace the list), and a --disable-features joins vimgpt's, as for a
// local launch (Chromium reads only the last one).
Json session_capabilities(const Json& asked, launch::Engine engine) {
  const std::string options_key = "goog:chromeOptions";
  const std::string disable = "--disable-features=";
  Json patch = asked;
  Json more_args = Json::array();
  if (patch.contains(options_key) && patch[options_key].is_object() && patch[options_key].contains("args")) {
    more_args = patch[options_key]["args"];
    patch[options_key].erase("args");
  }
  Json capabilities = default_webdriver_capabilities(engine);
  capabilities.merge_patch(patch);
  if (engine == launch::Engine::Firefox) return capabilities;
  Json& args = capabilities[options_key]["args"];
  for (const auto& arg : more_args) {
    const std::string text = arg.is_string() ? arg.get<std::string>() : arg.dump();
    if (!text.starts_with(disable)) {
      args.push_back(text);
      continue;
    }
    for (auto& ours : args) {
      if (ours.get<std::string>().starts_with(disable))
        ours = ours.get<std::string>() + "," + text.substr(disable.size());
    }
  }
  return capabilities;
}

// The WebDriver server one webdriver+ URL names.
struct Server {
  std::string base;  // http(s)://HOST:PORT/PATH, no trailing slash
  http::Headers headers;
  milliseconds timeout;
};

Result<http::HttpResponse> ask(const Server& server, http::Method method, const std::string& path,
                               const std::string& body, milliseconds timeout, std::function<bool()> stop = {}) {
  http::HttpRequest request;
  request.method = method;
  request.url = server.base + path;
  request.headers = server.headers;
  // Selenium's own clients send this exact type.
  if (!body.empty()) request.headers.set("Content-Type", "application/json; charset=utf-8");
  request.body = body;
  request.connect_timeout = server.timeout;
  request.total_timeout = timeout;
  request.stop = std::move(stop);
  return http::perform(request);
}

// Deletes a session. Nothing to do about a failure but say so: the Grid ends an idle session itself. Never stopped
// early: it is what a stopping run must still do, and it is bounded by the connect timeout.
void end_session(const Server& server, const std::string& session) {
  auto reply = ask(server, http::Method::Delete, session, "", server.timeout);
  if (!reply || !reply->ok()) {
    std::fprintf(stderr, "vimgpt: could not end WebDriver session %s%s: %s\n", server.base.c_str(), session.c_str(),
                 reply ? webdriver_error(*reply).c_str() : reply.error().message.c_str());
  }
}

// The CDP socket of one WebDriver session; closing it deletes the session, so the Grid's slot is free at once
// instead of after its idle timeout.
class WebDriverTransport final : public wire::Transport {
 public:
  WebDriverTransport(std::unique_ptr<wire::Transport> socket, Server server, std::string session)
      : socket_(std::move(socket)), server_(std::move(server)), session_(std::move(session)) {}
  ~WebDriverTransport() override { close(); }
  WebDriverTransport(const WebDriverTransport&) = delete;
  WebDriverTransport& operator=(const WebDriverTransport&) = delete;

  Status send(std::string_view message) override { return socket_->send(message); }
  Result<std::string> receive() override { return socket_->receive(); }
  void interrupt() override { socket_->interrupt(); }
  void close() override {
    socket_->close();
    std::call_once(deleted_, [this] { end_session(server_, session_); });
  }
  [[nodiscard]] std::string describe() const override {
    return "WebDriver session " + server_.base + session_ + " (" + socket_->describe() + ")";
  }

 private:
  std::unique_ptr<wire::Transport> socket_;
  Server server_;
  std::string session_;  // /session/ID
  std::once_flag deleted_;
};

bool stopping(const BrowserOptions& options) {
  return options.stop && options.stop();
}

// The New Session request's stop check, which libcurl calls about once a second while the server holds the request:
// also where a person is told, once, that the wait is the server's queue rather than a hang.
std::function<bool()> new_session_wait(const BrowserOptions& options, const std::string& where, milliseconds limit) {
  const auto asked_at = std::chrono::steady_clock::now();
  auto told = std::make_shared<bool>(false);
  return [&options, where, limit, asked_at, told] {
    if (!*told && options.on_queued && std::chrono::steady_clock::now() - asked_at >= options.queued_notice_after) {
      *told = true;
      options.on_queued("no session yet from " + where + " after " + format_duration(options.queued_notice_after) +
                        ": it queues new sessions while all its slots are busy; waiting up to " +
                        format_duration(limit) + " for one");
    }
    return stopping(options);
  };
}

Result<std::unique_ptr<wire::Transport>> open_webdriver_session(std::string_view webdriver_url,
                                                                const BrowserOptions& options) {
  VIMGPT_TRY(UrlParts parts, split_url(webdriver_url.substr(kWebDriverScheme.size())));
  if (parts.scheme != "http" && parts.scheme != "https") {
    return fail(ErrorKind::InvalidArgument, "a WebDriver server is webdriver+http://HOST:PORT or webdriver+https://");
  }
  Server server;
  for (const auto& [name, value] : options.headers) server.headers.set(name, value);
  if (!parts.credentials.empty()) {
    if (parts.credentials.find(':') == std::string::npos) {
      return fail(ErrorKind::InvalidArgument, "a webdriver URL's credentials are USER:PASSWORD@HOST");
    }
    server.headers.set("Authorization", "Basic " + base64_encode(parts.credentials));
  }
  std::string path = parts.rest.substr(0, parts.rest.find('?'));  // Grid 3's /wd/hub, a gateway's prefix
  while (!path.empty() && path.back() == '/') path.pop_back();
  server.base = parts.scheme + "://" + parts.authority() + path;
  server.timeout = options.timeout;

  const Json request = {
      {"capabilities", {{"alwaysMatch", session_capabilities(options.webdriver_capabilities, options.engine)}}}};
  const milliseconds limit = std::max(options.timeout, kNewSessionTimeout);
  const std::string where = "the WebDriver server at " + server.base;
  VIMGPT_TRY(http::HttpResponse reply, ask(server, http::Method::Post, "/session", request.dump(), limit,
                                           new_session_wait(options, where, limit)));
  if (!reply.ok()) return fail(ErrorKind::Protocol, where + " did not start a session: " + webdriver_error(reply));
  const Json body = Json::parse(reply.body, nullptr, false);
  const Json value = body.is_object() ? body.value("value", Json()) : Json();
  if (!value.is_object() || !value.contains("sessionId") || !value["sessionId"].is_string()) {
    return fail(ErrorKind::Protocol, where + " answered a new session without a sessionId");
  }
  const std::string session = "/session/" + value["sessionId"].get<std::string>();
  if (stopping(options)) {
    // Answered as the run was stopping: nobody will use it, so it must not hold a slot until the Grid's idle timeout.
    end_session(server, session);
    return fail(ErrorKind::Cancelled, where + " answered a new session as the run stopped; it was deleted");
  }
  const Json capabilities = value.value("capabilities", Json::object());
  const bool firefox = options.engine == launch::Engine::Firefox;
  const std::string socket_key = firefox ? "webSocketUrl" : "se:cdp";
  if (!capabilities.is_object() || !capabilities.contains(socket_key) || !capabilities[socket_key].is_string()) {
    end_session(server, session);  // it cannot be used: free the Grid's slot, then say why
    const std::string browser = capabilities.is_object() ? capabilities.value("browserName", "?") : "?";
    return fail(ErrorKind::Protocol,
                where + " gave a session with no \"" + socket_key + "\" socket (browser \"" + browser + "\"): " +
                    (firefox ? "vimgpt drives Firefox over WebDriver BiDi (capability \"webSocketUrl\": true)"
                             : "vimgpt drives Chromium-based browsers through it (for Firefox: --engine firefox)"));
  }
  auto socket = [&]() -> Result<std::unique_ptr<wire::Transport>> {
    VIMGPT_TRY(std::string cdp_url, reachable_cdp_url(capabilities[socket_key].get<std::string>(), server.base));
    wire::HttpHeaders handshake;  // Grid checks its authorisation on the socket too
    for (const auto& header : server.headers.entries()) handshake.emplace_back(header.name, header.value);
    return wire::connect_websocket(cdp_url, options.timeout, handshake);
  }();
  if (!socket || stopping(options)) {
    end_session(server, session);
    if (socket) return fail(ErrorKind::Cancelled, where + " started a session as the run stopped; it was deleted");
    return fail(socket.error().kind,
                where + " started a session whose DevTools socket failed: " + socket.error().message);
  }
  return std::unique_ptr<wire::Transport>(
      std::make_unique<WebDriverTransport>(std::move(*socket), std::move(server), session));
}

}  // namespace

Result<std::string> reachable_cdp_url(std::string_view announced, std::string_view server_url) {
  VIMGPT_TRY(UrlParts server,
             split_url(server_url.substr(server_url.starts_with(kWebDriverScheme) ? kWebDriverScheme.size() : 0)));
  VIMGPT_TRY(UrlParts cdp, split_url(announced));
  // Grid names its own address as it sees it, often localhost (in a container, on a node behind the router),
  // which from here is the server's address.
  if (!names_this_machine(cdp.host) || names_this_machine(server.host)) return std::string(announced);
  const std::string port = server.port.empty() ? (server.tls() ? "443" : "80") : server.port;
  return std::string(server.tls() ? "wss://" : "ws://") + server.host + ":" + port + cdp.rest;
}

Json default_webdriver_capabilities(launch::Engine engine) {
  if (engine == launch::Engine::Firefox) {
    Json capabilities = launch::firefox_session_capabilities();
    capabilities.update({{"browserName", "firefox"},
                         {"webSocketUrl", true},
                         {"moz:firefoxOptions",
                          {{"args", Json::array({"-headless"})}, {"prefs", launch::firefox_automation_prefs()}}}});
    return capabilities;
  }
  return {{"browserName", "chrome"},
          {"goog:chromeOptions",
           {{"args", Json::array({"--headless=new", "--disable-features=" + std::string(launch::kDisabledFeatures),
                                  "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                                  "--disable-backgrounding-occluded-windows", "--hide-scrollbars"})}}}};
}

Result<std::unique_ptr<wire::Transport>> connect_browser(std::string_view url, const BrowserOptions& options) {
  if (stopping(options))
    return fail(ErrorKind::Cancelled, "the run stopped before " + std::string(url) + " was reached");
  if (url.starts_with(kWebDriverScheme)) return open_webdriver_session(url, options);
  if (options.engine == launch::Engine::Firefox) {
    if (url.starts_with("ws://") || url.starts_with("wss://")) return open_bidi_session(url, options);
    return fail(ErrorKind::InvalidArgument,
                std::string(url) +
                    " is a DevTools endpoint, which is Chromium's: a remote Firefox is its BiDi socket "
                    "(ws://HOST:PORT, as Firefox started with --remote-debugging-port prints it) or a "
                    "WebDriver server (webdriver+http://HOST:PORT)");
  }
  return wire::connect_browser(url, options.timeout, options.headers);
}

}  // namespace vimgpt::fleet
