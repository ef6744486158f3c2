// A Firefox that is already running, reached at its own WebDriver BiDi socket (Firefox started with
// --remote-debugging-port prints "WebDriver BiDi listening on ws://HOST:PORT"): no WebDriver server between, so the
// BiDi session is vimgpt's to open and to end. Firefox ESR 153 takes one session at a time ("session not created:
// Maximum number of active sessions") and keeps a session whose socket has closed (tried 2026-12-05: a second client
// after a close without session.end was refused), so the transport ends the session it opened when it closes; a
// Firefox left holding one by a client that was killed must be restarted.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "fleet/fleet.h"

namespace vimgpt::fleet {
namespace {

// The largest id BiDi allows (a js-uint), so it is never one of the connection's own, which count up from 1.
constexpr std::string_view kSessionEndId = "9007199254740991";
// How long closing waits for Firefox to say the session ended.
constexpr milliseconds kEndWait{2000};

class BidiSessionTransport final : public wire::Transport {
 public:
  explicit BidiSessionTransport(std::unique_ptr<wire::Transport> socket) : socket_(std::move(socket)) {}
  ~BidiSessionTransport() override { close(); }
  BidiSessionTransport(const BidiSessionTransport&) = delete;
  BidiSessionTransport& operator=(const BidiSessionTransport&) = delete;

  Status send(std::string_view message) override { return socket_->send(message); }
  // The session's end is answered to whoever is receiving (the connection's reader): it is noticed on the way.
  Result<std::string> receive() override {
    auto message = socket_->receive();
    if (message && ending_ && message->find(std::string("\"id\":").append(kSessionEndId)) != std::string::npos) {
      std::scoped_lock lock(mutex_);
      ended_ = true;
      answered_.notify_all();
    }
    return message;
  }
  void interrupt() override { socket_->interrupt(); }
  void close() override {
    std::call_once(closing_, [this] {
      ending_ = true;
      const std::string end =
          std::string(R"({"id":)").append(kSessionEndId).append(R"(,"method":"session.end","params":{}})");
      // Unanswered when nobody reads any more (the link is gone): the wait is bounded.
      if (socket_->send(end)) {
        std::unique_lock lock(mutex_);
        answered_.wait_for(lock, kEndWait, [this] { return ended_; });
      }
      socket_->close();
    });
  }
  [[nodiscard]] std::string describe() const override {
    return "Firefox's WebDriver BiDi socket (" + socket_->describe() + ")";
  }

 private:
  std::unique_ptr<wire::Transport> socket_;
  std::once_flag closing_;
  std::atomic<bool> ending_{false};
  std::mutex mutex_;
  std::condition_variable answered_;
  bool ended_ = false;
};

// One reply, bounded: nothing else arrives on a socket without a session, so the first message is session.new's.
Result<Json> first_reply(wire::Transport& socket, milliseconds timeout) {
  std::mutex mutex;
  std::condition_variable done;
  bool received = false;
  std::thread watchdog([&] {
    std::unique_lock lock(mutex);
    if (!done.wait_for(lock, timeout, [&] { return received; })) socket.interrupt();
  });
  auto message = socket.receive();
  {
    std::scoped_lock lock(mutex);
    received = true;
  }
  done.notify_all();
  watchdog.join();
  if (!message) return message.failure();
  Json reply = Json::parse(*message, nullptr, false);
  if (!reply.is_object()) return fail(ErrorKind::Protocol, "Firefox answered session.new with no JSON object");
  return reply;
}

}  // namespace

Result<std::unique_ptr<wire::Transport>> open_bidi_session(std::string_view url, const BrowserOptions& options) {
  std::string socket_url(url);
  // Firefox announces ws://HOST:PORT; its BiDi sessions are made at /session there.
  const auto authority = socket_url.find("://") + 3;
  if (socket_url.find('/', authority) == std::string::npos) socket_url += "/session";
  VIMGPT_TRY(auto socket, wire::connect_websocket(socket_url, options.timeout, options.headers));
  const Json request = {{"id", 1},
                        {"method", "session.new"},
                        {"params", {{"capabilities", {{"alwaysMatch", launch::firefox_session_capabilities()}}}}}};
  VIMGPT_TRY_VOID(socket->send(request.dump()));
  auto reply = first_reply(*socket, std::max(options.timeout, milliseconds(30000)));
  if (!reply) {
    return fail(reply.error().kind,
                "the Firefox at " + socket_url + " did not answer session.new: " + reply.error().message);
  }
  // The endpoint's words, never thrown on: whatever listens at the URL may not be Firefox.
  const auto text = [&reply](const char* key) {
    const auto found = reply->find(key);
    return found != reply->end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  if (text("type") != "success") {
    const std::string why = (text("error").empty() ? "error" : text("error")) + ": " + text("message");
    if (why.find("Maximum number of active sessions") != std::string::npos) {
      return fail(ErrorKind::Protocol, "the Firefox at " + socket_url + " has a WebDriver session already (" + why +
                                           "): Firefox takes one client at a time; end the other one (a vimgpt, a "
                                           "test runner), or restart Firefox if it was killed");
    }
    return fail(ErrorKind::Protocol, "the Firefox at " + socket_url + " refused a new BiDi session: " + why);
  }
  return std::unique_ptr<wire::Transport>(std::make_unique<BidiSessionTransport>(std::move(socket)));
}

}  // namespace vimgpt::fleet
