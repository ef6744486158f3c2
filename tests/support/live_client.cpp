#include "support/live_client.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>

namespace vimgpt::test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

// Everything runs on the caller's thread: each wait runs the io_context until what it waits for has come.
struct LiveClient::Impl {
  net::io_context io;
  websocket::stream<beast::tcp_stream> socket{io};
  beast::flat_buffer buffer;
  std::deque<nlohmann::json> texts;
  std::deque<LiveFrame> frames;
  int live_frames = 0;
  bool open = false;
  bool reading = false;
  int refused = 0;

  void read_next() {
    reading = true;
    socket.async_read(buffer, [this](beast::error_code error, std::size_t) {
      reading = false;
      if (error) {
        open = false;
        return;
      }
      const std::string data = beast::buffers_to_string(buffer.data());
      buffer.consume(buffer.size());
      if (socket.got_binary() && data.size() >= 6) {
        LiveFrame frame;
        frame.kind = data[0];
        for (int i = 1; i <= 4; ++i) frame.run = (frame.run << 8) | static_cast<unsigned char>(data[i]);
        frame.image = data.substr(6);
        if (frame.kind == 'L') ++live_frames;
        frames.push_back(std::move(frame));
      } else if (!socket.got_binary()) {
        texts.push_back(nlohmann::json::parse(data, nullptr, false));
      }
      read_next();
    });
  }

  // Runs the connection until `done` holds or the deadline passes.
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (!open || std::chrono::steady_clock::now() >= deadline) return done();
      io.restart();
      io.run_one_until(deadline);
    }
    return true;
  }
};

namespace {

// Beast's handshake does not keep a refusal's status: the same upgrade request again, as plain HTTP, to read it.
int refusal_status(int port, const std::string& host, const std::string& target, const std::string& origin) {
  net::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code error;
  stream.expires_after(std::chrono::seconds(10));
  stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)), error);
  if (error) return 0;
  beast::http::request<beast::http::empty_body> request{beast::http::verb::get, target, 11};
  request.set(beast::http::field::host, host);
  request.set(beast::http::field::upgrade, "websocket");
  request.set(beast::http::field::connection, "upgrade");
  request.set(beast::http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  request.set(beast::http::field::sec_websocket_version, "13");
  if (!origin.empty()) request.set(beast::http::field::origin, origin);
  beast::http::write(stream, request, error);
  if (error) return 0;
  beast::flat_buffer buffer;
  beast::http::response<beast::http::string_body> response;
  beast::http::read(stream, buffer, response, error);
  return error ? 0 : static_cast<int>(response.result_int());
}

}  // namespace

LiveClient::LiveClient(int port, const std::string& token, const std::string& origin)
    : impl_(std::make_unique<Impl>()) {
  beast::error_code error;
  beast::get_lowest_layer(impl_->socket).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(impl_->socket)
      .connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)), error);
  if (error) return;
  beast::get_lowest_layer(impl_->socket).expires_never();
  impl_->socket.set_option(websocket::stream_base::decorator([origin](websocket::request_type& request) {
    if (!origin.empty()) request.set(beast::http::field::origin, origin);
  }));
  websocket::response_type response;
  const std::string host = "127.0.0.1:" + std::to_string(port);
  const std::string target = "/ws?token=" + token;
  impl_->socket.handshake(response, host, target, error);
  if (error) {
    impl_->refused = refusal_status(port, host, target, origin);
    return;
  }
  impl_->open = true;
  impl_->read_next();
}

LiveClient::~LiveClient() {
  close();
}

bool LiveClient::connected() const {
  return impl_->open;
}

int LiveClient::refused_status() const {
  return impl_->refused;
}

std::optional<nlohmann::json> LiveClient::wait_json(const std::function<bool(const nlohmann::json&)>& wanted,
                                                    std::chrono::milliseconds timeout) {
  std::optional<nlohmann::json> found;
  impl_->run_until(
      [&] {
        while (!found && !impl_->texts.empty()) {
          if (wanted(impl_->texts.front())) found = std::move(impl_->texts.front());
          impl_->texts.pop_front();
        }
        return found.has_value();
      },
      timeout);
  return found;
}

std::optional<LiveFrame> LiveClient::wait_frame(char kind, std::chrono::milliseconds timeout) {
  std::optional<LiveFrame> found;
  impl_->run_until(
      [&] {
        while (!found && !impl_->frames.empty()) {
          if (impl_->frames.front().kind == kind) found = std::move(impl_->frames.front());
          impl_->frames.pop_front();
        }
        return found.has_value();
      },
      timeout);
  return found;
}

int LiveClient::live_frames() const {
  return impl_->live_frames;
}

void LiveClient::send(const nlohmann::json& message) {
  if (!impl_->open) return;
  auto text = std::make_shared<std::string>(message.dump());
  auto sent = std::make_shared<bool>(false);  // the handler may run after this returns (a connection lost meanwhile)
  impl_->socket.text(true);
  impl_->socket.async_write(net::buffer(*text), [text, sent](beast::error_code, std::size_t) { *sent = true; });
  impl_->run_until([&] { return *sent; }, std::chrono::seconds(10));
}

void LiveClient::close() {
  if (!impl_->open) return;
  impl_->open = false;
  beast::error_code error;
  beast::get_lowest_layer(impl_->socket).socket().shutdown(tcp::socket::shutdown_both, error);
  beast::get_lowest_layer(impl_->socket).socket().close(error);
  impl_->io.restart();
  impl_->io.poll();
}

}  // namespace vimgpt::test
