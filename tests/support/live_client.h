// A page of the live view as a program: the WebSocket the page opens, with its token and Origin, and the messages it
// receives (JSON, and frames), waited for as events with a deadline. For tests and the live view's bench.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace vimgpt::test {

struct LiveFrame {
  char kind = 0;  // 'L' the tab now, 'M' the frame the model saw
  int run = 0;
  std::string image;
};

class LiveClient {
 public:
  // Connects to ws://127.0.0.1:PORT/ws?token=TOKEN, sending `origin` (empty: none, as a program would).
  LiveClient(int port, const std::string& token, const std::string& origin = {});
  ~LiveClient();
  LiveClient(const LiveClient&) = delete;
  LiveClient& operator=(const LiveClient&) = delete;

  // Whether the handshake succeeded; else the HTTP status the server refused it with (0: no answer).
  [[nodiscard]] bool connected() const;
  [[nodiscard]] int refused_status() const;

  // The next JSON message that satisfies `wanted` (earlier ones are dropped), or nothing by the deadline.
  std::optional<nlohmann::json> wait_json(const std::function<bool(const nlohmann::json&)>& wanted,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // The next frame of this kind, or nothing by the deadline.
  std::optional<LiveFrame> wait_frame(char kind, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Frames of the tab received so far.
  [[nodiscard]] int live_frames() const;
  void send(const nlohmann::json& message);
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vimgpt::test
