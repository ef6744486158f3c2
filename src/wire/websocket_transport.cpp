// The DevTools protocol over a WebSocket, for browsers we did not start: a Chromium with
// --remote-debugging-port, browserless, Selenium Grid, pods. Boost.Beast; ws:// and wss://.
//
// One I/O thread owns the socket: it keeps one read outstanding and writes a queue of messages in order,
// so send() from any thread and receive() in the connection's reader thread never touch Beast concurrently
// (a Beast stream is not thread-safe). receive() waits on a queue, so interrupt() only has to wake it.
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "wire/net_link.h"
#include "wire/wire.h"

namespace vimgpt::wire {
namespace {

namespace net = link::net;
namespace beast = link::beast;
namespace websocket = beast::websocket;

// Screenshots arrive as one base64 message of several megabytes; a full-page capture of a long page can
// pass 100 MB. Beast's default (16 MB) would cut the link on those.
constexpr std::uint64_t kMaxMessageBytes = 512ULL * 1024 * 1024;
// A clean close gets this long before the socket is simply dropped.
constexpr milliseconds kCloseGrace{2000};

template <typename Next>
class WebSocketTransport final : public Transport {
 public:
  using Stream = websocket::stream<Next>;

  WebSocketTransport(std::string url, std::unique_ptr<link::ssl::context> tls, HttpHeaders headers)
      : url_(std::move(url)), tls_(std::move(tls)), headers_(std::move(headers)), ws_(make_stream()) {}

  ~WebSocketTransport() override {
    close();
    if (io_thread_.joinable()) io_thread_.join();
  }
  WebSocketTransport(const WebSocketTransport&) = delete;
  WebSocketTransport& operator=(const WebSocketTransport&) = delete;

  Status open(const link::Endpoint& endpoint, milliseconds timeout) {
    VIMGPT_TRY_VOID(link::connect(ioc_, ws_.next_layer(), endpoint, timeout));
    // From here Beast's own websocket timeouts govern; the TCP-level expiry would fire mid-session.
    beast::get_lowest_layer(ws_).expires_never();
    // Idle links are fine: a browser may sit quiet while a model thinks for a minute.
    ws_.set_option(websocket::stream_base::timeout{timeout, websocket::stream_base::none(), false});
    // No Origin header: Chromium refuses WebSocket origins it was not told to allow, and a program is not
    // a web page. Beast sends none unless asked; the decorator names us and adds the endpoint's headers.
    ws_.set_option(websocket::stream_base::decorator([this](websocket::request_type& request) {
      request.set(beast::http::field::user_agent, "vimgpt");
      for (const auto& [name, value] : headers_) request.set(name, value);
    }));
    ws_.read_message_max(kMaxMessageBytes);
    ws_.auto_fragment(false);
    ws_.text(true);
    beast::error_code ec;
    bool done = false;
    ws_.async_handshake(endpoint.host_header(), endpoint.target, [&](beast::error_code e) {
      ec = e;
      done = true;
    });
    auto& socket = beast::get_lowest_layer(ws_).socket();
    VIMGPT_TRY_VOID(link::await(
        ioc_, done, timeout, [&] { socket.close(); }, "WebSocket handshake with " + url_));
    VIMGPT_TRY_VOID(link::check(ec, ErrorKind::Network, "WebSocket handshake with " + url_));

    ioc_.restart();
    work_.emplace(net::make_work_guard(ioc_));
    net::post(ioc_, [this] { read_next(); });
    io_thread_ = std::thread([this] { ioc_.run(); });
    return ok();
  }

  Status send(std::string_view message) override {
    {
      std::scoped_lock lock(mutex_);
      if (closing_ || lost_) return fail(ErrorKind::BrowserExited, lost_reason());
    }
    // Writes are queued on the I/O thread: Beast allows one write in flight, and CDP wants them in order.
    net::post(ioc_, [this, text = std::string(message)]() mutable {
      outbox_.push_back(std::move(text));
      if (outbox_.size() == 1) write_next();
    });
    return ok();
  }

  Result<std::string> receive() override {
    std::unique_lock lock(mutex_);
    arrived_.wait(lock, [&] { return interrupted_ || !inbox_.empty() || lost_; });
    if (interrupted_) return fail(ErrorKind::Cancelled, "the connection was interrupted");
    if (!inbox_.empty()) {
      std::string message = std::move(inbox_.front());
      inbox_.pop_front();
      return message;
    }
    return fail(ErrorKind::BrowserExited, lost_reason());
  }

  void interrupt() override {
    std::scoped_lock lock(mutex_);
    interrupted_ = true;
    arrived_.notify_all();
  }

  void close() override {
    {
      std::scoped_lock lock(mutex_);
      if (closing_) return;
      closing_ = true;
    }
    if (!io_thread_.joinable()) return;  // never opened
    // Say goodbye properly, so a fleet frees the browser at once instead of after its own timeout.
    net::post(ioc_, [this] {
      if (!outbox_.empty() || !ws_.is_open()) {
        beast::get_lowest_layer(ws_).socket().close();
        return;
      }
      ws_.async_close(websocket::close_code::normal,
                      [this](beast::error_code) { beast::get_lowest_layer(ws_).socket().close(); });
    });
    {
      std::unique_lock lock(mutex_);
      arrived_.wait_for(lock, kCloseGrace, [&] { return lost_; });
    }
    work_.reset();
    ioc_.stop();
    if (io_thread_.get_id() != std::this_thread::get_id()) io_thread_.join();
    std::scoped_lock lock(mutex_);
    if (!lost_) {
      lost_ = true;
      reason_ = "the WebSocket to " + url_ + " was closed";
    }
    arrived_.notify_all();
  }

  [[nodiscard]] std::string describe() const override { return "remote browser at " + url_; }

 private:
  Stream make_stream() {
    if constexpr (std::is_same_v<Next, beast::tcp_stream>) {
      return Stream(ioc_);
    } else {
      return Stream(ioc_, *tls_);
    }
  }

  void read_next() {
    ws_.async_read(buffer_, [this](beast::error_code ec, std::size_t) {
      std::scoped_lock lock(mutex_);
      if (ec) {
        // Whatever ended the link (the browser died, the network dropped, the peer closed), the connection
        // must see the same thing a dead pipe gives: BrowserExited, every pending command failed.
        if (!lost_) {
          lost_ = true;
          reason_ = closing_ ? "the WebSocket to " + url_ + " was closed"
                             : "the WebSocket to " + url_ + " was lost (" + ec.message() + ")";
        }
        arrived_.notify_all();
        return;
      }
      inbox_.push_back(beast::buffers_to_string(buffer_.data()));
      buffer_.consume(buffer_.size());
      arrived_.notify_all();
      net::post(ioc_, [this] { read_next(); });
    });
  }

  void write_next() {
    ws_.async_write(net::buffer(outbox_.front()), [this](beast::error_code ec, std::size_t) {
      if (ec) {
        // A failed write leaves the stream unusable; dropping the socket makes the read fail too, which
        // reports the loss through receive().
        outbox_.clear();
        beast::get_lowest_layer(ws_).socket().close();
        return;
      }
      outbox_.pop_front();
      if (!outbox_.empty()) write_next();
    });
  }

  [[nodiscard]] std::string lost_reason() const {
    return reason_.empty() ? "the WebSocket to " + url_ + " was closed" : reason_;
  }

  std::string url_;
  net::io_context ioc_;
  std::unique_ptr<link::ssl::context> tls_;  // outlives the stream that uses it
  HttpHeaders headers_;
  Stream ws_;
  beast::flat_buffer buffer_;       // I/O thread only
  std::deque<std::string> outbox_;  // I/O thread only
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  std::thread io_thread_;

  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::string> inbox_;
  bool interrupted_ = false;
  bool closing_ = false;
  bool lost_ = false;
  std::string reason_;
};

template <typename Next>
Result<std::unique_ptr<Transport>> open_transport(std::string url, const link::Endpoint& endpoint, milliseconds timeout,
                                                  const HttpHeaders& headers) {
  std::unique_ptr<link::ssl::context> tls;
  if constexpr (!std::is_same_v<Next, beast::tcp_stream>)
    tls = std::make_unique<link::ssl::context>(link::make_tls_context());
  auto transport = std::make_unique<WebSocketTransport<Next>>(std::move(url), std::move(tls), headers);
  VIMGPT_TRY_VOID(transport->open(endpoint, timeout));
  return std::unique_ptr<Transport>(std::move(transport));
}

}  // namespace

Result<std::unique_ptr<Transport>> connect_websocket(std::string_view url, milliseconds timeout,
                                                     const HttpHeaders& headers) {
  VIMGPT_TRY(link::Endpoint endpoint, link::parse_endpoint(url));
  if (endpoint.scheme == link::Scheme::Http || endpoint.scheme == link::Scheme::Https) {
    return fail(ErrorKind::InvalidArgument,
                "connect_websocket takes a ws:// or wss:// URL; resolve " + std::string(url) + " first");
  }
  try {
    if (endpoint.tls())
      return open_transport<beast::ssl_stream<beast::tcp_stream>>(std::string(url), endpoint, timeout, headers);
    return open_transport<beast::tcp_stream>(std::string(url), endpoint, timeout, headers);
  } catch (const std::exception& e) {  // Asio and OpenSSL report some setup failures by throwing
    return fail(ErrorKind::Network, "connecting to " + std::string(url) + ": " + e.what());
  }
}

Result<std::unique_ptr<Transport>> connect_browser(std::string_view url, milliseconds timeout,
                                                   const HttpHeaders& headers) {
  VIMGPT_TRY(std::string resolved, resolve_browser_url(url, headers, timeout));
  return connect_websocket(resolved, timeout, headers);
}

}  // namespace vimgpt::wire
