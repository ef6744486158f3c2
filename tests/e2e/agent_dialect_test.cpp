// The whole loop in each open family's dialect, through the real vimgpt binary: Chromium, a page on 127.0.0.1
// with one blue button, and the fake model answering as the family would (its own form and point space, the
// point found where the button is in the screenshot it received; for GLM-V, the numbered mark of the button the
// task names). The click lands only if the frame was sized for the family's server and its point was converted
// back right (or the mark's number names the button).
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "support/cli_runner.h"
#include "support/dialect_fake.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::uint8_t, 3> kBlue{30, 60, 220};

struct Family {
  const char* served;  // the model name as its server serves it
  const char* family;
};

class DialectE2E : public ::testing::TestWithParam<Family> {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      s.Get("/", [](const httplib::Request&, httplib::Response& res) {
        // The button is blue until clicked; the click is told to the server, then the button is gone.
        res.set_content(
            "<!doctype html><title>Order</title><body style='margin:0;background:#fff'>"
            "<p style='margin:20px'>Press the button to order.</p>"
            "<button id=order style='position:absolute;left:380px;top:220px;width:260px;height:140px;"
            "background:rgb(30,60,220);border:0;color:#fff' onclick=\"fetch('/ordered').then(() => "
            "{ document.body.innerHTML = '<p>Ordered.</p>'; })\">Order</button></body>",
            "text/html");
      });
      s.Get("/ordered", [this](const httplib::Request&, httplib::Response& res) {
        ++ordered_;
        res.set_content("ok", "text/plain");
      });
    });
    record_ = fs::temp_directory_path() /
              ("vimgpt-dialect-" + std::to_string(::getpid()) + "-" + std::string(GetParam().family));
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  std::atomic<int> ordered_{0};
  std::unique_ptr<test::SiteServer> site_;
  fs::path record_;
};

TEST_P(DialectE2E, OrdersByClickingThePointItsModelGives) {
  const Family& family = GetParam();
  test::FakeModelServer model;
  model.set_responder(test::dialect_responder(test::fake_family(family.family), kBlue, "The order is placed."));
  const test::CliRun run =
      test::run_vimgpt({"press the order button", "--base-url", model.url(), "--model", family.served, "--start-url",
                        site_->url("/"), "--record", record_.string(), "--max-retries", "0", "--max-steps", "4"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ordered_.load(), 1) << "the click did not land on the button";
  EXPECT_NE(run.out.find("The order is placed."), std::string::npos) << run.out;
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 2U);
  // A point, or for a family that reads numbered marks (GLM-V), the mark's number.
  const bool marks = std::string(family.family) == "glm-v";
  EXPECT_TRUE(steps[0]["action"].contains(marks ? "click" : "click_at")) << steps[0]["action"].dump();
  // The point fell on the labelled button: recorded with its signature, for the run cache and replay.
  ASSERT_TRUE(steps[0].contains("signature") && steps[0]["signature"].is_object()) << steps[0].dump();
  EXPECT_NE(steps[0]["signature"].dump().find("Order"), std::string::npos) << steps[0]["signature"].dump();
  EXPECT_TRUE(steps[1]["action"].contains("done")) << steps[1]["action"].dump();
  for (const auto& request : model.requests()) EXPECT_FALSE(request.body.contains("response_format"));
  // The second request carries the model's own first reply back: as its turn, or (GLM-V and MolmoWeb, whose
  // harnesses write the whole history into one prompt) as the first step's lines.
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 2U);
  const bool one_turn = marks || std::string(family.family) == "molmoweb";
  bool replied = false;
  for (const auto& message : requests[1].body["messages"]) replied |= message.value("role", "") == "assistant";
  EXPECT_EQ(replied, !one_turn);
  if (marks) {
    EXPECT_NE(requests[1].text.find("0.Thought:The button the task names is marked"), std::string::npos)
        << requests[1].text;
    EXPECT_NE(requests[0].text.find("]: button \"Order\";"), std::string::npos) << requests[0].text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, DialectE2E,
    ::testing::Values(Family{"qwen2.5vl:7b", "qwen2.5-vl"}, Family{"qwen3-vl:8b", "qwen3-vl"},
                      Family{"Qwen/Qwen3.5-9B", "qwen3.5"}, Family{"microsoft/Fara-7B", "fara"},
                      Family{"microsoft/Fara1.5-9B", "fara-1.5"}, Family{"UI-TARS-1.5-7B-Q4_K_M.gguf", "ui-tars-1.5"},
                      Family{"mPLUG/GUI-Owl-1.5-8B-Instruct", "gui-owl-1.5"}, Family{"zai-org/GLM-4.5V", "glm-v"},
                      Family{"Hcompany/Holo-3.1-35B-A3B", "holo3"}, Family{"allenai/MolmoWeb-8B", "molmoweb"}),
    [](const ::testing::TestParamInfo<Family>& tested) {
      std::string name = tested.param.family;
      for (char& c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace vimgpt
