// --verify through the real binary on a loopback page: the run's answer goes to a check of its own (the task, the
// answer, the steps and the last frame); a wrong answer comes back to the model with the check's reason and is
// corrected, one that stays wrong ends the run unverified (exit 7) with the answer kept; the verdicts are in the
// record and the checks' tokens in the run's usage.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"
#include "vision/vision.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::CliRun;
using test::ScriptedReply;

constexpr std::string_view kCheckWords = "You check the work of a web-browsing agent";

class AgentVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([](httplib::Server& s) {
      s.Get("/lamp", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<!doctype html><title>Lamp</title><h1>Red lamp</h1><p>The red lamp costs 42 EUR.</p>",
                        "text/html");
      });
    });
    scratch_ = fs::temp_directory_path() / ("vimgpt-verify-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  // The agent answers `answers` in turn (the last repeating); the check passes an answer that says 42 and fails
  // any other with its reason. A check must carry the task, the answer, the steps and one screenshot.
  void serve(std::vector<std::string> answers) {
    model_.set_responder([this, answers = std::move(answers)](const test::ReceivedRequest& request) {
      if (request.text.find(kCheckWords) == std::string::npos) {
        const std::size_t at = std::min(steps_++, answers.size() - 1);
        return ScriptedReply::text(json{{"done", answers[at]}}.dump());
      }
      for (const char* part : {"Task: find the price of the red lamp", "Steps taken:", "Its answer: "}) {
        if (request.text.find(part) == std::string::npos) {
          return ScriptedReply::status_code(400, std::string("the check lacks \"") + part + "\"");
        }
      }
      if (request.images.size() != 1) return ScriptedReply::status_code(400, "the check needs the frame");
      const std::string answer = request.text.substr(request.text.find("Its answer: ") + 12);
      return ScriptedReply::text(answer.find("42") != std::string::npos
                                     ? R"({"pass": true, "reason": "the page shows 42 EUR"})"
                                     : R"({"pass": false, "reason": "the page says the lamp costs 42 EUR, not 24"})");
    });
  }

  CliRun run(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"find the price of the red lamp",
                                     "--base-url",
                                     model_.url(),
                                     "--api-key",
                                     "test-key",
                                     "--start-url",
                                     site_->url("/lamp"),
                                     "--record",
                                     (scratch_ / "record").string(),
                                     "--max-retries",
                                     "0",
                                     "--max-steps",
                                     "5",
                                     "--verify"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_vimgpt(args);
  }

  [[nodiscard]] json run_json() const { return json::parse(std::ifstream(scratch_ / "record" / "run.json")); }

  std::unique_ptr<test::SiteServer> site_;
  test::FakeModelServer model_{test::Expectations{"test-key", std::string(vision::kDefaultModel),
                                                  test::default_frame_width(), 1, test::Requirement::Any}};
  std::size_t steps_ = 0;
  fs::path scratch_;
};

TEST_F(AgentVerify, AWrongAnswerComesBackWithTheChecksReasonAndIsCorrected) {
  serve({"24 EUR", "42 EUR"});
  const CliRun result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(model_.problems(), std::vector<std::string>{});
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 4U);  // the answer, its check, the corrected answer, its check
  EXPECT_NE(requests[1].text.find("Its answer: 24 EUR"), std::string::npos) << requests[1].text;
  // The model was told why, and that it may try again.
  EXPECT_NE(requests[2].text.find("the page says the lamp costs 42 EUR, not 24"), std::string::npos)
      << requests[2].text;
  EXPECT_NE(requests[2].text.find("1 of 2 tries"), std::string::npos) << requests[2].text;
  EXPECT_NE(result.out.find("42 EUR"), std::string::npos) << result.out;

  const json ran = run_json();
  EXPECT_EQ(ran["outcome"], "done");
  EXPECT_EQ(ran["answer"], "42 EUR");
  const auto steps = test::read_steps(scratch_ / "record");
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_FALSE(steps[0]["ok"].get<bool>());
  EXPECT_EQ(steps[0]["check"]["passed"], false);
  EXPECT_EQ(steps[0]["check"]["reason"], "the page says the lamp costs 42 EUR, not 24");
  EXPECT_EQ(steps[1]["check"]["passed"], true);
  // The checks are paid for like the steps: four requests' tokens (the fake counts 1,000 a prompt).
  EXPECT_EQ(steps[1]["usage_so_far"]["prompt_tokens"], 4000) << steps[1]["usage_so_far"].dump();
  // The report shows each verdict.
  std::ifstream report_file(scratch_ / "record" / "report.html");
  const std::string report((std::istreambuf_iterator<char>(report_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("Answer checked:</b> failed: the page says the lamp costs 42 EUR, not 24"), std::string::npos);
  EXPECT_NE(report.find("Answer checked:</b> passed: the page shows 42 EUR"), std::string::npos);
}

TEST_F(AgentVerify, AnAnswerThatStaysWrongEndsUnverifiedWithTheAnswerKept) {
  serve({"24 EUR"});
  const CliRun result = run({"--json"});
  EXPECT_EQ(result.exit_code, 7) << result.err;
  EXPECT_EQ(model_.request_count(), 6U);  // three answers, each checked: the last failing ends the run
  const json ran = run_json();
  EXPECT_EQ(ran["outcome"], "unverified");
  EXPECT_EQ(ran["answer"], "24 EUR");
  EXPECT_NE(ran["message"].get<std::string>().find("did not pass the check after 2 tries"), std::string::npos)
      << ran["message"];
  EXPECT_NE(ran["message"].get<std::string>().find("42 EUR, not 24"), std::string::npos) << ran["message"];
}

TEST_F(AgentVerify, ACheckWithoutAModelIsAUsageError) {
  fs::create_directories(scratch_);
  std::ofstream(scratch_ / "actions.json") << R"([{"done": "x"}])";
  const CliRun result = test::run_vimgpt({"--actions", (scratch_ / "actions.json").string(), "--verify"});
  EXPECT_EQ(result.exit_code, 64) << result.err;
  EXPECT_NE(result.err.find("--verify checks a model's answer"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace vimgpt
