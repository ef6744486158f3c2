// Cookie-consent dialogs (--consent): a banner built like OneTrust's is refused by autoconsent before the model's first
// look, the site gets the refusal, and the model is told what was answered; with --consent off it is the model's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/assertions.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::ScriptedReply;

class ConsentE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    site_.mount("/fx", VIMGPT_FIXTURES_DIR "/site");
    record_ = fs::temp_directory_path() / ("vimgpt-consent-" + std::to_string(::getpid()));
    fs::remove_all(record_);
    model_.set_default_reply(R"({"done": "9:00 to 18:00"})");
  }
  void TearDown() override { fs::remove_all(record_); }

  test::CliRun visit_museum(std::vector<std::string> flags) {
    std::vector<std::string> args = {"when is the museum open?",
                                     "--base-url",
                                     model_.url(),
                                     "--api-key",
                                     "test-key",
                                     "--observe",
                                     "hybrid",
                                     "--start-url",
                                     site_.url("/fx/consent.html"),
                                     "--record",
                                     record_.string()};
    args.insert(args.end(), flags.begin(), flags.end());
    return test::run_vimgpt(args);
  }

  test::SiteServer site_;
  test::FakeModelServer model_{test::Expectations{"test-key", std::string(vision::kDefaultModel),
                                                  test::default_frame_width(), 1, test::Requirement::Any}};
  fs::path record_;
};

TEST_F(ConsentE2E, ABannerBuiltLikeOneTrustsIsRefusedBeforeTheModelsFirstLook) {
  const auto run = visit_museum({});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(site_.count("GET", "/consent/reject"), 1);
  EXPECT_EQ(site_.count("GET", "/consent/accept"), 0);
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 1U);
  const std::string& text = requests[0].text;
  EXPECT_TRUE(test::has(text, "the page's cookie-consent dialog (Onetrust) was answered for you: consent refused"))
      << text;
  // The banner was gone when the page was captured: none of its buttons has a label.
  EXPECT_FALSE(test::has(text, "Accept all cookies")) << text;
  EXPECT_FALSE(test::has(text, "Reject all")) << text;
  EXPECT_TRUE(test::has(text, "Tickets")) << text;
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 1U);
  EXPECT_TRUE(test::has(steps[0].value("consent", nlohmann::json::array()).dump(), "(Onetrust) was answered"))
      << steps[0];
}

TEST_F(ConsentE2E, WithConsentOffTheBannerIsTheModelsToAnswer) {
  const auto run = visit_museum({"--consent", "off"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(site_.count("GET", "/consent/reject"), 0);
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_TRUE(test::has(requests[0].text, "Accept all cookies")) << requests[0].text;
  EXPECT_FALSE(test::has(requests[0].text, "cookie-consent dialog")) << requests[0].text;
}

TEST_F(ConsentE2E, AConsentModeVimgptHasNotIsAUsageErrorThatSaysWhatItHas) {
  const auto run = visit_museum({"--consent", "accept"});
  EXPECT_EQ(run.exit_code, 64);  // a usage error
  EXPECT_TRUE(test::has(run.err, "--consent accept is not available yet")) << run.err;
  EXPECT_EQ(model_.request_count(), 0U);
  const auto other = visit_museum({"--consent", "maybe"});
  EXPECT_EQ(other.exit_code, 64);
  EXPECT_TRUE(test::has(other.err, "--consent takes reject (the default) or off, not 'maybe'")) << other.err;
}

}  // namespace
}  // namespace vimgpt
