// The DevTools connection's reader against messages of the wrong shape, the kind a broken or hostile remote
// endpoint can send (fuzz/cdp_reader_fuzz found the first of these): each is answered or skipped, and the
// reader goes on.
#include <gtest/gtest.h>

#include "cdp/cdp.h"
#include "support/scripted_transport.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

TEST(Connection, AnErrorReplyOfTheWrongShapeIsStillAnError) {
  cdp::Connection connection(std::make_unique<test::ScriptedTransport>(
      std::deque<std::string>{R"({"id": 1, "error": {"code": "No target", "message": "gone"}})"}));
  auto reply = connection.call("Target.attachToTarget", {}, "", 5s);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, ErrorKind::Protocol);
  EXPECT_NE(reply.error().message.find("gone (\"No target\")"), std::string::npos) << reply.error().message;
}

TEST(Connection, MalformedEventsAreSkippedAndTheReaderGoesOn) {
  std::vector<std::string> seen;  // outlives the connection, whose reader thread writes it
  {
    cdp::Connection connection(std::make_unique<test::ScriptedTransport>(std::deque<std::string>{
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
