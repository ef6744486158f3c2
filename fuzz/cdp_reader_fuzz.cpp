// The CDP message reader takes whatever the browser end of the pipe (or a remote DevTools endpoint) sends:
// the input is a NUL-framed byte stream fed in uneven chunks to the real Connection reader, with one command
// waiting for a reply and an event subscriber reading what arrives. Nothing may crash, leak or hang.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "cdp/cdp.h"
#include "cdp/framing.h"

namespace {

using namespace vimgpt;

// Plays the fuzz input back as a browser would: only after the first command has been sent (so replies
// can meet a waiting call), then reports the link closed.
class ReplayTransport final : public cdp::Transport {
 public:
  explicit ReplayTransport(std::string_view stream) {
    cdp::NulFramer framer;
    std::vector<std::string> messages;
    // Uneven chunks: the first byte of the stream picks the chunk size, so splits land everywhere.
    const std::size_t chunk = stream.empty() ? 1 : 1 + static_cast<unsigned char>(stream[0]) % 61;
    for (std::size_t at = 0; at < stream.size(); at += chunk) framer.feed(stream.substr(at, chunk), messages);
    messages_.assign(messages.begin(), messages.end());
  }
  Status send(std::string_view) override {
    std::scoped_lock lock(mutex_);
    sent_ = true;
    changed_.notify_all();
    return ok();
  }
  Result<std::string> receive() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return sent_ || closed_; });
    if (closed_ || messages_.empty()) return fail(ErrorKind::BrowserExited, "replay finished");
    std::string message = std::move(messages_.front());
    messages_.pop_front();
    return message;
  }
  void interrupt() override { close(); }
  void close() override {
    std::scoped_lock lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  [[nodiscard]] std::string describe() const override { return "fuzz replay"; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> messages_;
  bool sent_ = false;
  bool closed_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view stream(reinterpret_cast<const char*>(data), size);
  std::size_t seen = 0;  // outlives the connection, whose reader thread writes it
  cdp::Connection connection(std::make_unique<ReplayTransport>(stream));
  connection.subscribe([&seen](const cdp::Event& event) {
    seen += event.method.size() + event.session_id.size() + event.params.size();
  });
  // Command id 1: a reply with "id": 1 in the input meets it; otherwise the closed link ends it.
  auto reply = connection.call("Fuzz.command", cdp::Json::object(), "", std::chrono::milliseconds(2000));
  if (reply) (void)reply->dump();
  return 0;
}
