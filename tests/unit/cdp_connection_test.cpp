// The DevTools connection's reader against messages of the wrong shape, the kind a broken or hostile remote
// endpoint can send (fuzz/cdp_reader_fuzz found the first of these): each is answered or skipped, and the
// reader goes on.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>

#include "common/file.h"

#include "support/scripted_transport.h"
#include "wire/wire.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

TEST(Connection, AnErrorReplyOfTheWrongShapeIsStillAnError) {
  wire::Connection connection(std::make_unique<test::ScriptedTransport>(
      std::deque<std::string>{R"({"id": 1, "error": {"code": "No target", "message": "gone"}})"}));
  auto reply = connection.call("Target.attachToTarget", {}, "", 5s);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, ErrorKind::Protocol);
  EXPECT_NE(reply.error().message.find("gone (\"No target\")"), std::string::npos) << reply.error().message;
}

TEST(Connection, MalformedEventsAreSkippedAndTheReaderGoesOn) {
  std::vector<std::string> seen;  // outlives the connection, whose reader thread writes it
  {
    wire::Connection connection(std::make_unique<test::ScriptedTransport>(std::deque<std::string>{
        R"({"method": "Page.loadEventFired", "sessionId": 7, "params": {}})",          // numeric session id
        R"({"method": "Page.frameNavigated", "params": {"frame": "not an object"}})",  // the handler throws
        R"({"method": "Page.loadEventFired", "sessionId": "S1", "params": {}})",
        R"({"id": 1, "result": {"ok": true}})"}));
    connection.subscribe([&seen](const wire::Event& event) {
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

TEST(Connection, VimgptCdpLogWritesEveryMessageBothWaysCutShort) {
  const auto path = std::filesystem::temp_directory_path() / ("vimgpt-cdp-log-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  ::setenv("VIMGPT_CDP_LOG", path.c_str(), 1);
  {
    wire::Connection connection(std::make_unique<test::ScriptedTransport>(
        std::deque<std::string>{R"({"method": "Page.loadEventFired", "sessionId": "S1", "params": {}})",
                                R"({"id": 1, "result": {"data": ")" + std::string(1000, 'A') + R"("}})"}));
    auto reply = connection.call("Page.captureScreenshot", {{"format", "jpeg"}}, "S1", 5s);
    ASSERT_TRUE(reply) << reply.error().describe();
  }
  ::unsetenv("VIMGPT_CDP_LOG");
  auto log = read_file(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(log) << log.error().message;
  EXPECT_NE(log->find(R"( > {"id":1,"method":"Page.captureScreenshot","params":{"format":"jpeg"},"sessionId":"S1"})"),
            std::string::npos)
      << *log;
  EXPECT_NE(log->find(R"( < {"method": "Page.loadEventFired", "sessionId": "S1", "params": {}})"), std::string::npos)
      << *log;
  EXPECT_NE(log->find(R"( < {"id": 1, "result": {"data": "AAAA)"), std::string::npos) << *log;
  EXPECT_NE(log->find("... (1033 bytes)\n"), std::string::npos) << *log;  // the frame is not written out
  EXPECT_EQ(log->find(std::string(500, 'A')), std::string::npos);
}

// A browser that is gone, seen from the writing end first: the write fails while the reader, blocked in
// receive(), has not noticed yet.
class BrokenPipeTransport final : public wire::Transport {
 public:
  Status send(std::string_view) override { return fail(ErrorKind::BrowserExited, "Chromium's pipe closed (EPIPE)"); }
  Result<std::string> receive() override {
    std::unique_lock lock(mutex_);
    closed_cv_.wait(lock, [&] { return closed_; });
    return fail(ErrorKind::BrowserExited, "closed");
  }
  void interrupt() override { close(); }
  void close() override {
    std::scoped_lock lock(mutex_);
    closed_ = true;
    closed_cv_.notify_all();
  }
  [[nodiscard]] std::string describe() const override { return "broken pipe"; }

 private:
  std::mutex mutex_;
  std::condition_variable closed_cv_;
  bool closed_ = false;
};

TEST(Connection, AFailedWriteEndsTheConnectionAtOnce) {
  std::atomic<int> closed_events{0};
  wire::Connection connection(std::make_unique<BrokenPipeTransport>());
  connection.subscribe([&](const wire::Event& event) {
    if (event.method == "Connection.closed") ++closed_events;
  });
  auto reply = connection.call("Page.enable", {}, "", 5s);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, ErrorKind::BrowserExited);
  // Callers that ask whether the browser is alive (restart, batch hand-over) must not wait for the reader.
  EXPECT_FALSE(connection.alive());
  EXPECT_NE(connection.closed_reason().find("EPIPE"), std::string::npos) << connection.closed_reason();
  EXPECT_EQ(closed_events.load(), 1);
  auto again = connection.call("Page.enable", {}, "", 5s);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::BrowserExited);
}

}  // namespace
}  // namespace vimgpt
