// The DevTools connection's reader against messages of the wrong shape, the kind a broken or hostile remote
// endpoint can send (fuzz/cdp_reader_fuzz found the first of these): each is answered or skipped, and the
// reader goes on.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "cdp/cdp.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

// Hands out the given messages once the first command has been sent, then reports the link closed.
class ScriptedTransport final : public cdp::Transport {
 public:
  explicit ScriptedTransport(std::deque<std::string> messages) : messages_(std::move(messages)) {}
  Status send(std::string_view) override {
    std::scoped_lock lock(mutex_);
    sent_ = true;
    changed_.notify_all();
    return ok();
  }
  Result<std::string> receive() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return sent_ || closed_; });
    if (closed_ || messages_.empty()) return fail(ErrorKind::BrowserExited, "script finished");
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
  [[nodiscard]] std::string describe() const override { return "script"; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> messages_;
  bool sent_ = false;
  bool closed_ = false;
};

TEST(Connection, AnErrorReplyOfTheWrongShapeIsStillAnError) {
  cdp::Connection connection(std::make_unique<ScriptedTransport>(
      std::deque<std::string>{R"({"id": 1, "error": {"code": "No target", "message": "gone"}})"}));
  auto reply = connection.call("Target.attachToTarget", {}, "", 5s);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, ErrorKind::Protocol);
  EXPECT_NE(reply.error().message.find("gone (\"No target\")"), std::string::npos) << reply.error().message;
}

TEST(Connection, MalformedEventsAreSkippedAndTheReaderGoesOn) {
  std::vector<std::string> seen;  // outlives the connection, whose reader thread writes it
  {
    cdp::Connection connection(std::make_unique<ScriptedTransport>(std::deque<std::string>{
        R"({"method": "Page.loadEventFired", "sessionId": 7, "params": {}})",          // numeric session id
        R"({"method": "Page.frameNavigated", "params": {"frame": "not an object"}})",  // the handler throws
        R"({"method": "Page.loadEventFired", "sessionId": "S1", "params": {}})",
        R"({"id": 1, "result": {"ok": true}})"}));
    connection.subscribe([&seen](const cdp::Event& event) {
      if (event.method == "Page.frameNavigated") (void)event.params["frame"].value("id", "");  // throws
      seen.push_back(event.method + "@" + event.session_id);
    });
    auto reply = connection.call("Page.enable", {}, "", 5s);
    ASSERT_TRUE(reply) << reply.error().describe();  // the reply after the bad events still arrives
    EXPECT_EQ((*reply)["ok"], true);
  }
  ASSERT_GE(seen.size(), 2U);
  EXPECT_EQ(seen[0], "Page.loadEventFired@");  // a session id of the wrong type counts as none
  EXPECT_EQ(seen[1], "Page.loadEventFired@S1");
}

}  // namespace
}  // namespace vimgpt
