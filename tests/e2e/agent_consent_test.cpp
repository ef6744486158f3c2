// Cookie-consent dialogs (--consent): a banner built like OneTrust's is refused by autoconsent before the model's first
// look, the site gets the refusal, and the model is told what was answered; with --consent accept it is accepted where
// autoconsent knows how (and left to the model where it does not); with --consent off it is the model's.
#include <gtest/gtest.h>
#include <httplib.h>
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

  test::CliRun visit_museum(std::vector<std::string> flags, const std::string& page = "/fx/consent.html") {
    std::vector<std::string> args = {"when is the museum open?",
                                     "--base-url",
                                     model_.url(),
                                     "--api-key",
                                     "test-key",
                                     "--observe",
                                     "hybrid",
                                     "--start-url",
                                     site_.url(page),
                                     "--record",
                                     record_.string()};
    args.insert(args.end(), flags.begin(), flags.end());
    return test::run_vimgpt(args);
  }

  // With --consent accept, `page`'s banner is accepted (the site told so, once) and gone from the model's first look,
  // which is told what was answered.
  void expect_accepted_before_the_first_look(const std::string& page) {
    const auto run = visit_museum({"--consent", "accept"}, page);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(site_.count("GET", "/consent/accept"), 1);
    EXPECT_EQ(site_.count("GET", "/consent/reject"), 0);
    const auto requests = model_.requests();
    ASSERT_EQ(requests.size(), 1U);
    EXPECT_TRUE(
        test::has(requests[0].text,
                  "the page's cookie-consent dialog (Onetrust) was answered for you: consent given (--consent accept)"))
        << requests[0].text;
    EXPECT_FALSE(test::has(requests[0].text, "Accept all cookies")) << requests[0].text;
  }

  // `page`'s Piano-like banner, in a frame from another site, is refused there (the site told so, once) and gone from
  // the model's first look, which is told what was answered in which frame.
  void expect_frame_dialog_refused_before_the_first_look(const std::string& page) {
    const auto run = visit_museum({}, page);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(site_.count("GET", "/consent/reject"), 1);
    const auto requests = model_.requests();
    ASSERT_EQ(requests.size(), 1U);
    EXPECT_TRUE(
        test::has(requests[0].text,
                  "the cookie-consent dialog in a frame from localhost (piano.io) was answered for you: consent "
                  "refused (--consent reject)"))
        << requests[0].text;
    EXPECT_FALSE(test::has(requests[0].text, "Accept all cookies")) << requests[0].text;
  }

  // A consent platform's dialog in a frame from its own site (localhost: another site, so a process of its own).
  test::SiteServer site_{[](httplib::Server& s) {
    s.Get("/framed", [](const httplib::Request& req, httplib::Response& res) {
      const std::string host = req.get_header_value("Host");
      res.set_content(
          "<!doctype html><title>Framed</title><h1>Our museum</h1><iframe style='width:900px;"
          "height:500px' src='http://localhost" +
              host.substr(host.find(':')) + "/fx/consent-frame.html?busy=" + req.get_param_value("busy") +
              "'></iframe>",
          "text/html");
    });
  }};
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

TEST_F(ConsentE2E, WithConsentAcceptTheBannerBuiltLikeOneTrustsIsAccepted) {
  expect_accepted_before_the_first_look("/fx/consent.html");
}

// A banner its platform puts in only after the page has loaded: autoconsent's first look finds no dialog and it looks
// again while the first capture waits (its state then is "started", a look under way), so the banner is gone from
// the model's first look and what was answered is told there.
TEST_F(ConsentE2E, ABannerShownAfterTheLoadIsAnsweredBeforeTheFirstLook) {
  expect_accepted_before_the_first_look("/fx/consent-late.html");
}

// Cookie Script's dialog: autoconsent's rules refuse it, but hold no step that accepts it. With accept it is left to
// the model, never reported as accepted with nothing clicked.
TEST_F(ConsentE2E, WithConsentAcceptAPlatformItCannotAcceptOnIsLeftToTheModel) {
  const auto refused = visit_museum({}, "/fx/consent-script.html");
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_EQ(site_.count("GET", "/consent/reject"), 1);  // the platform is one autoconsent knows
  ASSERT_EQ(model_.requests().size(), 1U);
  EXPECT_TRUE(test::has(model_.requests()[0].text, "(cookie-script) was answered for you: consent refused"))
      << model_.requests()[0].text;

  const auto accepted = visit_museum({"--consent", "accept"}, "/fx/consent-script.html");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  EXPECT_EQ(site_.count("GET", "/consent/accept"), 0);
  EXPECT_EQ(site_.count("GET", "/consent/reject"), 1);  // still the first run's alone
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_FALSE(test::has(requests[1].text, "cookie-consent dialog")) << requests[1].text;
  EXPECT_TRUE(test::has(requests[1].text, "Accept all")) << requests[1].text;  // the model sees the banner
}

TEST_F(ConsentE2E, ADialogInACrossOriginFrameIsAnsweredThereAndTold) {
  expect_frame_dialog_refused_before_the_first_look("/framed");
}

// The frame's thread busy for two seconds after its load (a loaded machine): vimgpt asks the frame before autoconsent
// there has begun to look, and piano.io's rule hides nothing while it looks, so only the element its rule detects the
// platform by says a dialog is coming.
TEST_F(ConsentE2E, ADialogInAFrameStillToBeLookedAtIsWaitedFor) {
  expect_frame_dialog_refused_before_the_first_look("/framed?busy=2000");
}

TEST_F(ConsentE2E, AConsentModeVimgptHasNotIsAUsageErrorThatSaysWhatItHas) {
  const auto other = visit_museum({"--consent", "maybe"});
  EXPECT_EQ(other.exit_code, 64);  // a usage error
  EXPECT_TRUE(test::has(other.err, "--consent takes reject (the default), accept or off, not 'maybe'")) << other.err;
  EXPECT_EQ(model_.request_count(), 0U);
}

}  // namespace
}  // namespace vimgpt
