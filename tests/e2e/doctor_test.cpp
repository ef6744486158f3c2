// `vimgpt doctor` and `vimgpt models` through the real binary, against the fake model playing each provider.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <cmath>

#include "support/cli_runner.h"
#include "support/dialect_fake.h"
#include "support/fake_model_server.h"
#include "support/refused_port.h"
#include "support/vision_model.h"
#include "vision/vision.h"

namespace vimgpt {
namespace {

using test::answer_like_a_vision_model;
using test::FakeModelServer;
using test::run_vimgpt;
using test::ScriptedReply;

test::Expectations playing(test::Service service) {
  test::Expectations want;
  want.api_key = "k";
  want.service = service;
  want.images = 1;
  return want;
}

TEST(Doctor, OpenAIPassesEveryStageAndSaysWhatItCostAndTook) {
  FakeModelServer model(playing(test::Service::OpenAI));
  answer_like_a_vision_model(model);
  const auto run = run_vimgpt(
      {"doctor", "--provider", "openai", "--model", "gpt-6.1-terra", "--base-url", model.url(), "--api-key", "k"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  for (const char* line : {"ok   reached", "ok   key accepted", "ok   model found", "ok   image accepted: 768x512",
                           "ok   structured output: json_schema", "ok   reply parsed",
                           "ok   right action: {\"click\":\"D\"}", "the model is ready for vimgpt"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << "\n" << run.out;
  }
  EXPECT_NE(run.out.find("$0.00"), std::string::npos) << run.out;  // priced from the catalogue
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
}

TEST(Doctor, AnthropicKeyAloneWithTheSdksBaseUrlPicksTheAnthropicDefault) {
  FakeModelServer model(playing(test::Service::Compatible));
  answer_like_a_vision_model(model);
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("OPENAI_BASE_URL");
  ::setenv("ANTHROPIC_API_KEY", "k", 1);
  ::setenv("ANTHROPIC_BASE_URL", ("http://127.0.0.1:" + std::to_string(model.port())).c_str(), 1);  // no /v1
  const auto run = run_vimgpt({"doctor"});
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("ANTHROPIC_BASE_URL");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("model " + std::string(vision::kDefaultAnthropicModel) + " (anthropic)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("ok   structured output: output_config"), std::string::npos) << run.out;
  ASSERT_EQ(model.request_count(), 1U);
  EXPECT_EQ(model.requests()[0].path, "/v1/messages");
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
}

TEST(Doctor, ACompatibleServerWithAModelTheCatalogueDoesNotKnow) {
  FakeModelServer model(playing(test::Service::Compatible));
  answer_like_a_vision_model(model);
  const auto run = run_vimgpt({"doctor", "--base-url", model.url(), "--model", "llava:13b", "--api-key", "k"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("(compatible)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("not in the catalogue: safe defaults"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("no price known: --price-in, --price-out"), std::string::npos) << run.out;
  EXPECT_EQ(model.requests()[0].body["max_tokens"], 300);
}

TEST(Doctor, EachFailureNamesItsStageAndWhatToChange) {
  FakeModelServer model(playing(test::Service::Compatible));
  const std::vector<std::string> base = {"doctor",    "--base-url", model.url(),     "--model", "gpt-6.1-terra",
                                         "--api-key", "k",          "--max-retries", "0"};
  model.push(ScriptedReply::status_code(401, "Incorrect API key provided"));
  auto run = run_vimgpt(base);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("ok   reached"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("FAIL key accepted: the key was refused"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--   model found"), std::string::npos) << run.out;

  model.push(ScriptedReply::status_code(404, "The model does not exist"));
  run = run_vimgpt(base);
  EXPECT_NE(run.out.find("FAIL model found: no model gpt-6.1-terra there"), std::string::npos) << run.out;

  model.push_reply(R"({"click": "S"})");  // a model that does not see which square is blue
  run = run_vimgpt(base);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("FAIL right action: answered {\"click\":\"S\"}"), std::string::npos) << run.out;

  const test::RefusedPort closed;
  run = run_vimgpt({"doctor", "--base-url", "http://127.0.0.1:" + std::to_string(closed.port()) + "/v1", "--model",
                    "llava", "--max-retries", "0"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("FAIL reached: no answer from llava at http://127.0.0.1:"), std::string::npos) << run.out;
}

// A family that reads numbered marks (GLM-V) is shown the squares marked 0 and 1 with their list: its fake names the
// mark of the square the objective names, which it finds only in that list.
TEST(Doctor, AFamilyThatReadsMarksIsShownNumberedMarksAndTheirList) {
  FakeModelServer model;
  model.set_responder(test::dialect_responder(test::fake_family("glm-v"), {30, 60, 220}, "clicked"));
  const auto run = run_vimgpt({"doctor", "--model", "zai-org/GLM-4.5V", "--base-url", model.url()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("ok   right action: {\"click\":\"1\"}"), std::string::npos) << run.out;
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  ASSERT_EQ(model.requests().size(), 1U);
  EXPECT_NE(model.requests()[0].text.find("[1]: generic \"blue square\";"), std::string::npos)
      << model.requests()[0].text;
}

// --mode computer-use: the squares unlabelled, the provider's tool sent, and its point checked against the square.
TEST(Doctor, ComputerUseModeChecksThatTheToolsPointLandsOnTheTarget) {
  FakeModelServer model;
  model.set_responder([](const test::ReceivedRequest& request) {
    const auto image = test::last_image(request.body);
    const auto blue = image ? test::find_colour(*image, {30, 60, 220}) : std::nullopt;
    if (!blue) return test::ScriptedReply::text("I see no blue square.");
    return test::ScriptedReply::tool_use(nlohmann::json::array(
        {{{"name", "left_click"}, {"input", {{"coordinate", {std::lround(blue->x), std::lround(blue->y)}}}}}}));
  });
  const auto run = run_vimgpt(
      {"doctor", "--model", "claude-opus-5-5", "--api-key", "k", "--base-url", model.url(), "--mode", "computer-use"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("the point lands on the target (anthropic_computer dialect)"), std::string::npos) << run.out;
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  ASSERT_EQ(model.requests().size(), 1U);
  EXPECT_EQ(model.requests()[0].body["tools"][0]["type"], "computer_toolset_20260801");
  const auto image = test::last_image(model.requests()[0].body);
  ASSERT_TRUE(image.has_value());
  EXPECT_FALSE(test::find_colour(*image, {255, 214, 0}).has_value()) << "the doctor's frame carried labels";
}

// Gemini's tool on Google's native API: its point on the 0-999 grid, converted back onto the square.
TEST(Doctor, ComputerUseModeOnGeminiChecksItsGridPoint) {
  FakeModelServer model{
      test::Expectations{"k", "gemini-3.8-flash", 0, 0, test::Requirement::Any, test::Service::Gemini}};
  model.set_responder([](const test::ReceivedRequest& request) {
    const auto image = test::last_image(request.body);
    const auto blue = image ? test::find_colour(*image, {30, 60, 220}) : std::nullopt;
    if (!blue) return test::ScriptedReply::text("I see no blue square.");
    return test::ScriptedReply::tool_use(nlohmann::json::array(
        {{{"name", "click"},
          {"args",
           {{"x", std::lround(blue->x * 1000 / blue->width)}, {"y", std::lround(blue->y * 1000 / blue->height)}}}}}));
  });
  const auto run = run_vimgpt({"doctor", "--model", "gemini-3.8-flash", "--api-key", "k", "--base-url",
                               model.gemini_url(), "--provider", "gemini", "--mode", "computer-use"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("the point lands on the target (gemini_computer dialect)"), std::string::npos) << run.out;
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  ASSERT_EQ(model.requests().size(), 1U);
  EXPECT_EQ(model.requests()[0].path, "/v1beta/models/gemini-3.8-flash:generateContent");
}

TEST(Doctor, WhatAModelCannotTakeIsAUsageErrorBeforeAnyRequest) {
  FakeModelServer model;
  auto run = run_vimgpt({"doctor", "--model", "gpt-5.5-pro", "--effort", "low", "--api-key", "k"});
  EXPECT_EQ(run.exit_code, 64);
  EXPECT_NE(run.err.find("model gpt-5.5-pro takes no reasoning effort: leave out --effort low"), std::string::npos)
      << run.err;
  run = run_vimgpt({"doctor", "--model", "gpt-6.2-sol", "--effort", "none", "--api-key", "k"});
  EXPECT_EQ(run.exit_code, 64);
  EXPECT_NE(run.err.find("takes --effort low, medium, high, xhigh"), std::string::npos) << run.err;
  run = run_vimgpt({"doctor", "--model", "claude-3-7-sonnet-latest", "--api-key", "k"});
  EXPECT_EQ(run.exit_code, 64);
  EXPECT_NE(run.err.find("retired on 2026-02-19"), std::string::npos) << run.err;
  EXPECT_EQ(model.request_count(), 0U);
}

TEST(Models, TheCatalogueIsPrintedWithItsDateAndEachEntryWithItsSources) {
  auto run = run_vimgpt({"models"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("read on " + std::string(vision::catalogue_read_on())), std::string::npos);
  EXPECT_NE(run.out.find("default: " + std::string(vision::kDefaultModel)), std::string::npos);
  EXPECT_NE(run.out.find("deprecated until 2027-01-14 -> gpt-6-luna"), std::string::npos) << run.out;  // gpt-4o
  run = run_vimgpt({"models", "claude-opus-4-5-20251101"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto entry = nlohmann::json::parse(run.out);
  EXPECT_EQ(entry["id"], "claude-opus-4-5");
  EXPECT_DOUBLE_EQ(entry["price"]["input"].get<double>(), 5.0);
  EXPECT_FALSE(entry["sources"].empty());
  EXPECT_EQ(entry["computer_tool"]["type"], "computer_20251124");  // what --mode computer-use sends it
  // An open family's entry says how it speaks, with what rests on assumption in its note.
  run = run_vimgpt({"models", "qwen3.5:9b"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const auto qwen = nlohmann::json::parse(run.out);
  EXPECT_EQ(qwen["dialect"]["calls"], "xml");
  EXPECT_EQ(qwen["dialect"]["told_screen"], "999x999");
  EXPECT_NE(qwen["note"].get<std::string>().find("assumed"), std::string::npos);
  run = run_vimgpt({"models", "--json"});
  EXPECT_EQ(nlohmann::json::parse(run.out)["models"].size(), vision::model_catalogue().size());
  run = run_vimgpt({"models", "gpt-9"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("not in the catalogue"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt
