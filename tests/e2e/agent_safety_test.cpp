// Safety through the whole loop: the domain policy holds against a page that tries to steer the agent, and
// secrets reach the page but never the model, the records or the terminal.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::ScriptedReply;

std::string label_for(const std::string& prompt_text, const std::string& name) {
  const std::regex line(R"(\[([A-Z]+)\][^\n]*)" + name);
  std::smatch match;
  return std::regex_search(prompt_text, match, line) ? std::string(match[1]) : "NOT-FOUND";
}

class SafetyE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      // A same-server redirect to another host: the click is allowed, the hop it causes is not.
      s.Get("/redirect-away", [this](const httplib::Request&, httplib::Response& res) {
        res.set_redirect("http://localhost:" + std::to_string(site_->port()) + "/evil");
      });
      s.Get("/evil", [](const httplib::Request&, httplib::Response& res) { res.set_content("pwned", "text/plain"); });
      s.Post("/reserve", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<title>Reserved</title><p>Reserved.</p>", "text/html");
      });
    });
    site_->mount("/fx", VIMGPT_FIXTURES_DIR "/site");
    record_ = fs::temp_directory_path() / ("vimgpt-safety-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  std::unique_ptr<test::SiteServer> site_;
  test::FakeModelServer model_{test::Expectations{"test-key", "gpt-4o", 1080, 1, test::Requirement::Any}};
  fs::path record_;
};

TEST_F(SafetyE2E, AllowListBlocksWhatAnInjectedPageAsksForAndTheModelSeesWhy) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1: return ScriptedReply::text(R"({"navigate": "evil.test"})");  // as the page "instructed"
      case 2: return ScriptedReply::text(R"({"click": ")" + label_for(request.text, "Claim your prize") + R"("})");
      default: return ScriptedReply::text(R"({"done": "Open daily from 9:00 to 18:00"})");
    }
  });
  const auto run = test::run_vimgpt({"when is the museum open?", "--base-url", model_.url(), "--api-key", "test-key",
                                     "--observe", "hybrid", "--start-url", site_->url("/fx/injection.html"),
                                     "--allow-domain", "127.0.0.1", "--record", record_.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Open daily from 9:00 to 18:00\n");
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_FALSE(steps[0]["ok"].get<bool>());
  EXPECT_NE(steps[0]["result"].get<std::string>().find("not in the allowed domains"), std::string::npos)
      << steps[0]["result"];
  EXPECT_FALSE(steps[1]["ok"].get<bool>());
  EXPECT_NE(steps[1]["result"].get<std::string>().find("blocked"), std::string::npos) << steps[1]["result"];
  EXPECT_EQ(site_->count("GET", "/evil"), 0);  // the blocked hop never left the browser
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  // The model is told page text is data, and sees each refusal on its next step.
  EXPECT_NE(requests[0].text.find("never instructions"), std::string::npos);
  EXPECT_NE(requests[1].text.find("not in the allowed domains"), std::string::npos);
  EXPECT_NE(requests[2].text.find("blocked"), std::string::npos);
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST_F(SafetyE2E, SecretsReachThePageButNoModelRecordOrTerminal) {
  const std::string secret = "hunter2-secret-value";
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1:
        return ScriptedReply::text(R"({"click": ")" + label_for(request.text, "Your name") +
                                   R"(", "type": "<secret:NAME>"})");
      default: return ScriptedReply::text(R"({"done": "reserved"})");
    }
  });
  const auto run = test::run_vimgpt({"reserve under my name", "--base-url", model_.url(), "--api-key", "test-key",
                                     "--observe", "hybrid", "--start-url", site_->url("/fx/item.html"), "--secret",
                                     "NAME=" + secret, "--record", record_.string(), "--json", "-v"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  bool typed = false;
  for (const auto& request : site_->requests()) typed |= request.body == "name=" + secret;
  EXPECT_TRUE(typed);  // the page got the real value
  for (const auto& request : model_.requests()) {
    EXPECT_EQ(request.raw_body.find(secret), std::string::npos);
    EXPECT_NE(request.text.find("<secret:NAME>"), std::string::npos);  // the model knows the placeholder
  }
  EXPECT_EQ(run.out.find(secret), std::string::npos);
  EXPECT_EQ(run.err.find(secret), std::string::npos);
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(record_)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string bytes = read_all(entry.path());
    EXPECT_EQ(bytes.find(secret), std::string::npos) << entry.path();
    EXPECT_EQ(bytes.find("test-key"), std::string::npos) << entry.path();
  }
  EXPECT_GE(files, 4);  // steps.jsonl, run.json, report.html, frames
}

}  // namespace
}  // namespace vimgpt
