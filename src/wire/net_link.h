// Private to src/wire: URLs of remote browsers and the Boost.Asio plumbing shared by the WebSocket transport
// and the /json/version lookup (resolve, connect, TLS, each phase bounded by a deadline).
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "wire/wire.h"

namespace vimgpt::wire::link {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;
using std::chrono::milliseconds;

enum class Scheme { Ws, Wss, Http, Https };

struct Endpoint {
  Scheme scheme = Scheme::Ws;
  std::string host;  // without IPv6 brackets
  std::string port;
  std::string target;  // path and query, "/" at least

  [[nodiscard]] bool tls() const { return scheme == Scheme::Wss || scheme == Scheme::Https; }
  // The Host header: "host:port", IPv6 hosts in brackets.
  [[nodiscard]] std::string host_header() const;
};

// ws://, wss://, http://, https:// with an optional port (default 80/443) and path.
Result<Endpoint> parse_endpoint(std::string_view url);

using Headers = HttpHeaders;

struct HttpReply {
  int status = 0;
  std::string body;
};

// GET `endpoint` (http or https) with `headers`, the whole exchange within `timeout`. Any status is a reply: the
// caller decides what an error status means.
Result<HttpReply> get(const Endpoint& endpoint, const Headers& headers, milliseconds timeout);

// Runs `ioc` until `done` is set or `timeout` passes. On a timeout `abort` cancels the operation, whose
// handler is then drained, so nothing outlives the caller's stack. A hung peer fails one phase, fast.
Status await(net::io_context& ioc, const bool& done, milliseconds timeout, const std::function<void()>& abort,
             std::string_view phase);

// An error code from a finished phase as a Result: `kind` for failures of the link itself.
Status check(const beast::error_code& ec, ErrorKind kind, std::string_view phase);

// Resolves and connects the TCP layer of `stream`, then the TLS layer when there is one (SNI set, the
// certificate verified against the system's roots and the host name).
template <typename Stream>
Status connect(net::io_context& ioc, Stream& stream, const Endpoint& endpoint, milliseconds timeout) {
  auto& socket_layer = beast::get_lowest_layer(stream);
  tcp::resolver resolver(ioc);
  tcp::resolver::results_type addresses;
  beast::error_code ec;
  bool done = false;
  resolver.async_resolve(endpoint.host, endpoint.port, [&](beast::error_code e, tcp::resolver::results_type r) {
    ec = e;
    addresses = std::move(r);
    done = true;
  });
  VIMGPT_TRY_VOID(await(
      ioc, done, timeout, [&] { resolver.cancel(); }, "resolving " + endpoint.host));
  VIMGPT_TRY_VOID(check(ec, ErrorKind::Network, "resolving " + endpoint.host));

  done = false;
  socket_layer.async_connect(addresses, [&](beast::error_code e, const tcp::endpoint&) {
    ec = e;
    done = true;
  });
  const std::string where = endpoint.host_header();
  VIMGPT_TRY_VOID(await(
      ioc, done, timeout, [&] { socket_layer.socket().close(); }, "connecting to " + where));
  VIMGPT_TRY_VOID(check(ec, ErrorKind::Network, "connecting to " + where));

  if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
    auto& tls = stream;
    // SNI: fleets behind one address pick the certificate (and the browser) by name.
    if (::SSL_set_tlsext_host_name(tls.native_handle(), endpoint.host.c_str()) != 1) {
      return fail(ErrorKind::Network, "cannot set the TLS server name for " + endpoint.host);
    }
    tls.set_verify_mode(ssl::verify_peer);
    tls.set_verify_callback(ssl::host_name_verification(endpoint.host));
    done = false;
    tls.async_handshake(ssl::stream_base::client, [&](beast::error_code e) {
      ec = e;
      done = true;
    });
    VIMGPT_TRY_VOID(await(
        ioc, done, timeout, [&] { socket_layer.socket().close(); }, "TLS handshake with " + where));
    VIMGPT_TRY_VOID(check(ec, ErrorKind::Network, "TLS handshake with " + where));
  }
  return ok();
}

// A client TLS context that verifies peers against the system's certificate store.
ssl::context make_tls_context();

}  // namespace vimgpt::wire::link
