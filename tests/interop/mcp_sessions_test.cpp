// Isolated, parallel MCP sessions driven by the official SDK client (mcp_sessions.mjs) against a loopback site
// that signs people in by cookie, and the fake model, whose first reply is held until the script says B has
// looked: A's browse is under way all that time.
#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;

// The model's first request waits here until the script has looked with B (bounded, so a server that runs the
// sessions one after another fails the script's checks instead of hanging).
struct Gate {
  std::mutex mutex;
  std::condition_variable opened;
  bool asked = false;
  bool released = false;
};

TEST(McpSessions, TwoSdkClientsGetIsolatedBrowsersThatRunInParallel) {
  const fs::path interop = fs::path(VIMGPT_SOURCE_DIR) / "tests" / "interop";
  ASSERT_TRUE(fs::exists(interop / "node_modules" / "@modelcontextprotocol" / "sdk"))
      << "npm packages missing: scripts/test.sh installs them (npm ci in tests/interop)";
  Gate gate;
  test::SiteServer site([&gate](httplib::Server& s) {
    test::add_cookie_login(s);
    // Answered once the model has been asked (bounded): the script's way to wait for A's browse to be under way.
    s.Get("/asked", [&gate](const httplib::Request&, httplib::Response& response) {
      std::unique_lock lock(gate.mutex);
      gate.opened.wait_for(lock, std::chrono::seconds(30), [&] { return gate.asked; });
      response.set_content(gate.asked ? "yes" : "no", "text/plain");
    });
    s.Get("/release", [&gate](const httplib::Request&, httplib::Response& response) {
      std::scoped_lock lock(gate.mutex);
      gate.released = true;
      gate.opened.notify_all();
      response.set_content("released", "text/plain");
    });
  });
  site.mount("/fx", VIMGPT_FIXTURES_DIR "/site");

  test::FakeModelServer model(test::Expectations{"k", std::string(vision::kDefaultModel), test::default_frame_width(),
                                                 1, test::Requirement::Any});
  model.set_responder([&gate](const test::ReceivedRequest&) {
    auto reply = test::ScriptedReply::text(R"({"done": "ada is signed in"})");
    reply.hold = [&gate] {
      std::unique_lock lock(gate.mutex);
      gate.asked = true;
      gate.opened.notify_all();
      gate.opened.wait_for(lock, std::chrono::seconds(30), [&] { return gate.released; });
    };
    return reply;
  });

  const std::string command = "cd '" + interop.string() + "' && VIMGPT_BINARY='" VIMGPT_BINARY "' SITE_URL='" +
                              site.url("") + "' MODEL_URL='" + model.url() + "' node mcp_sessions.mjs 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("ok: two isolated sessions"), std::string::npos) << output;
  EXPECT_EQ(model.request_count(), 1U);
  EXPECT_TRUE(model.problems().empty()) << model.problems().front();
}

}  // namespace
}  // namespace vimgpt
