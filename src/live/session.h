// Private to src/live: one open page's WebSocket, on the server's thread.
#pragma once

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "live/hub.h"

namespace vimgpt::live {

class WatcherSession : public std::enable_shared_from_this<WatcherSession> {
 public:
  WatcherSession(boost::asio::ip::tcp::socket socket, std::shared_ptr<Server::Hub> hub);
  // Completes the WebSocket handshake the page asked for, then reads its requests until it closes.
  void start(const boost::beast::http::request<boost::beast::http::string_body>& request);
  // Queues a message (the server's thread only). A slow page loses frames, never text.
  void send(const Outgoing& message);
  // The server stops: what is queued is sent, then the WebSocket is closed as the protocol asks (the page keeps its
  // last state, the run's end included).
  void finish();

 private:
  void read_next();
  void write_next();
  void reply_error(const std::string& message);

  boost::beast::websocket::stream<boost::beast::tcp_stream> socket_;
  std::shared_ptr<Server::Hub> hub_;
  boost::beast::flat_buffer buffer_;
  std::deque<Outgoing> queue_;
  bool writing_ = false;
  bool finishing_ = false;
  void close_now();
};

}  // namespace vimgpt::live
