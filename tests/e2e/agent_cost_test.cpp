// What a run costs, through the real vimgpt binary: budgets that stop before a request could pass them, the
// provider's prompt cache read and priced per step, earlier frames on request, and a text-only observation.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>

#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::FakeModelServer;
using test::read_steps;
using test::run_vimgpt;
using test::ScriptedReply;

// A page long enough to scroll, with text below the fold and a field whose value is not page text.
std::unique_ptr<test::SiteServer> start_site() {
  return std::make_unique<test::SiteServer>([](httplib::Server& s) {
    s.Get("/long", [](const httplib::Request&, httplib::Response& res) {
      std::string html =
          "<!doctype html><title>Opening hours</title><h1>Museum of Maps</h1>"
          "<p>Open daily from nine to five.</p><a href='/tickets'>Tickets</a>"
          "<input aria-label='Name' value='typed-not-text'>";
      for (int i = 0; i < 40; ++i) html += "<p>Gallery " + std::to_string(i) + " shows old maps.</p>";
      html += "<p style='margin-top:2000px'>Far below the fold.</p>";
      res.set_content(html, "text/html");
    });
  });
}

class CostE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = start_site();
    record_ = fs::temp_directory_path() / ("vimgpt-cost-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  std::vector<std::string> args(std::vector<std::string> extra = {}) {
    std::vector<std::string> all = {"find the opening hours",
                                    "--base-url",
                                    model_.url(),
                                    "--api-key",
                                    "test-key",
                                    "--start-url",
                                    site_->url("/long"),
                                    "--record",
                                    record_.string(),
                                    "--max-retries",
                                    "0",
                                    "--model",
                                    std::string(vision::kDefaultModel)};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  nlohmann::json run_json() const { return nlohmann::json::parse(std::ifstream(record_ / "run.json")); }

  std::unique_ptr<test::SiteServer> site_;
  FakeModelServer model_{
      test::Expectations{"test-key", std::string(vision::kDefaultModel), 0, 0, test::Requirement::Any}};
  fs::path record_;
};

// Two actions in turn, so the stuck detector never ends the run before the budget does.
void scroll_back_and_forth(FakeModelServer& model) {
  auto count = std::make_shared<int>(0);
  model.set_responder([count](const test::ReceivedRequest&) {
    return ScriptedReply::text(++*count % 2 == 1 ? R"({"scroll": "down"})" : R"({"scroll": "up"})");
  });
}

// "... $0.0026 spent, and the next request could cost up to $0.0095" → {0.0026, 0.0095}
std::pair<double, double> spent_and_next(const std::string& err, const std::string& unit) {
  const std::regex pattern("(\\S+) spent, and the next request could (?:cost|take) up to (\\S+)");
  std::smatch match;
  if (!std::regex_search(err, match, pattern)) return {-1, -1};
  const auto number = [&unit](std::string text) { return std::stod(text.substr(text.find(unit) + unit.size())); };
  return {number(match[1]), number(match[2])};
}

TEST_F(CostE2E, MaxCostStopsBeforeTheRequestThatCouldPassIt) {
  scroll_back_and_forth(model_);
  // gpt-6.1-terra at $1/M in and $5/M out (the catalogue's): the fake reports 1,000 + 12 tokens a request
  // (~$0.0011), and each request is bounded by its text and action schema (o200k_base), its frame and 300 tokens of
  // reply (~$0.0059: the budget leaves room for a few requests).
  const double budget = 0.011;
  const auto run = run_vimgpt(args({"--max-cost", "0.011"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  ASSERT_NE(run.err.find("stopped before passing the cost budget of $0.0110"), std::string::npos) << run.err;
  const auto [spent, next] = spent_and_next(run.err, "$");
  const auto requests = static_cast<int>(model_.request_count());
  EXPECT_GE(requests, 2) << run.err;
  EXPECT_NEAR(spent, requests * (1000 * 1.0 + 12 * 5.0) / 1e6, 1e-4);
  EXPECT_LE(spent, budget);
  EXPECT_GT(spent + next, budget);                  // the request not sent would have been allowed to pass it
  EXPECT_GT(next, (1000 * 1.0 + 300 * 5.0) / 1e6);  // an upper bound of what a request costs
  const auto json = run_json();
  EXPECT_EQ(json["outcome"], "budget exhausted");
  EXPECT_NEAR(json["usage"]["cost_usd"].get<double>(), spent, 1e-4);
  EXPECT_EQ(read_steps(record_).size(), model_.request_count());  // every step paid for is kept
}

// A budget lets through the request it can pay for. At $10/M in and $30/M out, a request here is about 4,300 tokens
// as OpenAI counts it (the prompt, the action schema it bills as input, the frame), plus 300 tokens of reply room:
// about $0.052. A token per 3 bytes made it 5,900 ($0.068), so $0.06 refused the first request; counted with the
// model's own tokenizer (gpt-6.1-terra's o200k_base) it goes, and after it (the fake bills $0.0104) what is left pays
// for none.
TEST_F(CostE2E, APricedBudgetLetsThroughTheRequestItCanPayFor) {
  scroll_back_and_forth(model_);
  const auto run = run_vimgpt(args({"--price-in", "10", "--price-out", "30", "--max-cost", "0.06"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  ASSERT_NE(run.err.find("stopped before passing the cost budget of $0.0600"), std::string::npos) << run.err;
  ASSERT_EQ(model_.request_count(), 1U) << run.err;
  const auto [spent, next] = spent_and_next(run.err, "$");
  EXPECT_NEAR(spent, static_cast<double>(model_.request_count()) * (1000 * 10.0 + 12 * 30.0) / 1e6, 1e-4);
  EXPECT_GT(spent + next, 0.06);  // the request not sent could have passed it
  // What the unsent request's bound gives its text and frame: more than its words at 4 bytes a token, and less than a
  // token per 3 bytes gave its text alone (its body, images out).
  const double prompt_bound = (next - 300 * 30.0 / 1e6) / (10.0 / 1e6);
  const auto last = model_.requests().back();
  std::size_t text_bytes = last.raw_body.size();
  for (const auto& image : last.images) text_bytes -= image.base64_bytes;
  EXPECT_GT(prompt_bound, static_cast<double>(last.text.size()) / 4) << run.err;
  EXPECT_LT(prompt_bound, static_cast<double>(text_bytes) / 3) << run.err;
}

// A reasoning model's request is bounded by its whole reply cap: --max-tokens and the reasoning allowance (gpt-6.2-sol
// with OpenAI's rules: 300 + 4,096 tokens at $10/M out, with the prompt about $0.06). A budget of $0.05 used to refuse
// its first request; now each request goes with the largest cap the budget still pays for, never asked again wider
// when the model spends it all reasoning, and the run stops at the budget (exit 2) with every request paid for.
TEST_F(CostE2E, ABudgetSendsAReasoningModelsRequestWithTheReplyCapItCanPayFor) {
  auto count = std::make_shared<int>(0);
  model_.set_responder([count](const test::ReceivedRequest&) {
    auto reply = ScriptedReply::text(++*count % 2 == 1 ? R"({"scroll": "down"})" : R"({"scroll": "up"})");
    reply.reasoning_tokens = 600;  // 1,000 in and 612 out: $0.0081 a request, when the cap leaves room for it
    return reply;
  });
  auto arguments = args({"--max-cost", "0.05", "--provider", "openai", "--json"});
  *(std::find(arguments.begin(), arguments.end(), "--model") + 1) = "gpt-6.2-sol";
  model_.expect(test::Expectations{"test-key", "gpt-6.2-sol", 0, 0, test::Requirement::Any, test::Service::OpenAI});
  const auto run = run_vimgpt(arguments);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.out.find(R"("outcome":"budget exhausted")"), std::string::npos) << run.out;
  const auto requests = model_.requests();
  ASSERT_GE(requests.size(), 2U) << run.err;
  int previous = 0;
  for (const auto& request : requests) {
    EXPECT_TRUE(request.problems.empty()) << request.problems.front();
    const int cap = request.body.value("max_completion_tokens", 0);
    EXPECT_GE(cap, 300) << "the reply's own room is never given up";
    EXPECT_LT(cap, 300 + 4096) << "the budget never left room for the whole cap";
    if (previous > 0) EXPECT_LT(cap, previous) << "less is left at each request, and a starved reply is not widened";
    previous = cap;
  }
  const auto json = run_json();
  EXPECT_EQ(json["outcome"], "budget exhausted");
  const double spent = json["usage"]["cost_usd"].get<double>();
  EXPECT_LE(spent, 0.05);
  EXPECT_GE(spent, static_cast<double>(requests.size() - 1) * (1000 * 2.0 + 612 * 10.0) / 1e6);
}

// A model that declines while the budgets cap its reply is an error in its own words, not a spent budget: only a
// reply the cap starved (ErrorKind::BudgetSpent) ends the run "budget exhausted".
TEST_F(CostE2E, AModelThatDeclinesUnderACappedBudgetIsAnErrorNotASpentBudget) {
  model_.expect(test::Expectations{"test-key", "gpt-6.2-sol", 0, 0, test::Requirement::Any, test::Service::OpenAI});
  model_.push(ScriptedReply::refusal("I can't help with that."));
  auto arguments = args({"--max-cost", "0.05", "--provider", "openai", "--json"});
  *(std::find(arguments.begin(), arguments.end(), "--model") + 1) = "gpt-6.2-sol";
  const auto run = run_vimgpt(arguments);
  ASSERT_EQ(model_.request_count(), 1U) << run.err;
  const int cap = model_.requests()[0].body.value("max_completion_tokens", 0);
  EXPECT_LT(cap, 300 + 4096) << "the budget capped the request, as the case needs";
  EXPECT_NE(run.exit_code, 2) << run.err;
  const auto json = run_json();
  EXPECT_EQ(json["outcome"], "error") << json.dump();
  EXPECT_NE(run.err.find("I can't help with that."), std::string::npos) << run.err;
}

// Gemini through Google's OpenAI-compatible endpoint (played by the fake, with Google's rules and error shapes): the
// run goes to /v1beta/openai with the catalogue's rules for the model (no schema, no temperature, effort low with
// room to think) and is priced at its catalogue price ($0.75/M in, $3.75/M out).
TEST_F(CostE2E, AGeminiRunSpeaksGooglesEndpointAndIsPricedFromTheCatalogue) {
  auto count = std::make_shared<int>(0);
  model_.set_responder([count](const test::ReceivedRequest&) {
    return ScriptedReply::text(++*count == 1 ? R"({"scroll": "down"})"
                                             : R"({"done": "Open daily from nine to five."})");
  });
  model_.expect(
      test::Expectations{"test-key", "gemini-3.8-flash", 0, 0, test::Requirement::Any, test::Service::Gemini});
  auto arguments = args({"--provider", "gemini", "--temperature", "0.2", "--json"});
  *(std::find(arguments.begin(), arguments.end(), "--model") + 1) = "gemini-3.8-flash";
  *(std::find(arguments.begin(), arguments.end(), "--base-url") + 1) = model_.gemini_url();
  const auto run = run_vimgpt(arguments);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("nine to five"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("takes no temperature"), std::string::npos) << run.err;
  EXPECT_EQ(model_.problems(), std::vector<std::string>{});
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 2U);
  for (const auto& request : requests) {
    EXPECT_EQ(request.path, "/v1beta/openai/chat/completions");
    EXPECT_EQ(request.body.value("reasoning_effort", ""), "low");
    EXPECT_EQ(request.body.value("max_tokens", 0), 300 + 2048);
    EXPECT_FALSE(request.body.contains("response_format"));
    EXPECT_FALSE(request.body.contains("temperature"));
  }
  const auto json = run_json();
  EXPECT_EQ(json["outcome"], "done");
  const auto& usage = json["usage"];
  EXPECT_GT(usage["completion_tokens"].get<double>(), 2 * 12) << "its thinking is counted";
  EXPECT_NEAR(usage["cost_usd"].get<double>(),
              (usage["prompt_tokens"].get<double>() * 0.75 + usage["completion_tokens"].get<double>() * 3.75) / 1e6,
              1e-9);
}

// A model OpenAI serves only through its Responses API (played by the fake, with OpenAI's rules for the model): the
// run speaks /v1/responses, reads the reply and its usage, and is priced at the catalogue's price ($30/M in, $180/M
// out) within a cost budget that pays for two steps of it.
TEST_F(CostE2E, AResponsesOnlyModelRunsOnTheResponsesApiAndIsPricedFromTheCatalogue) {
  auto count = std::make_shared<int>(0);
  model_.set_responder([count](const test::ReceivedRequest&) {
    return ScriptedReply::text(++*count == 1 ? R"({"scroll": "down"})"
                                             : R"({"done": "Open daily from nine to five."})");
  });
  model_.expect(test::Expectations{"test-key", "gpt-5.5-pro", 0, 0, test::Requirement::Any, test::Service::OpenAI});
  auto arguments = args({"--provider", "openai", "--max-cost", "5", "--json"});
  *(std::find(arguments.begin(), arguments.end(), "--model") + 1) = "gpt-5.5-pro";
  const auto run = run_vimgpt(arguments);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("nine to five"), std::string::npos) << run.out;
  EXPECT_EQ(model_.problems(), std::vector<std::string>{});
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 2U);
  for (const auto& request : requests) {
    EXPECT_EQ(request.path, "/v1/responses");
    EXPECT_EQ(request.body.value("max_output_tokens", 0), 300 + 8192);
    EXPECT_EQ(request.images.size(), 1U);
  }
  const auto json = run_json();
  EXPECT_EQ(json["outcome"], "done");
  const auto& usage = json["usage"];
  EXPECT_GT(usage["reasoning_tokens"].get<double>(), 0) << "its reasoning is counted";
  EXPECT_NEAR(usage["cost_usd"].get<double>(),
              (usage["prompt_tokens"].get<double>() * 30.0 + usage["completion_tokens"].get<double>() * 180.0) / 1e6,
              1e-9);
}

TEST_F(CostE2E, MaxTokensTotalStopsBeforeTheRequestThatCouldPassIt) {
  scroll_back_and_forth(model_);
  const auto run = run_vimgpt(args({"--max-tokens-total", "8000", "--json"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  ASSERT_NE(run.err.find("the token budget of 8000"), std::string::npos) << run.err;
  const auto [spent, next] = spent_and_next(run.err, "");
  const auto requests = static_cast<int>(model_.request_count());
  EXPECT_GE(requests, 2);
  EXPECT_EQ(spent, 1012 * requests);
  EXPECT_GT(spent + next, 8000);
  EXPECT_LE(spent, 8000);
  const auto json = run_json();
  EXPECT_EQ(json["outcome"], "budget exhausted");
  EXPECT_EQ(json["usage"]["prompt_tokens"].get<int>() + json["usage"]["completion_tokens"].get<int>(), spent);
  EXPECT_NE(run.out.find(R"("outcome":"budget exhausted")"), std::string::npos) << run.out;
}

TEST_F(CostE2E, MaxCostNeedsAKnownPrice) {
  const auto run = run_vimgpt({"x", "--base-url", model_.url(), "--model", "my-local-llava", "--max-cost", "1"});
  EXPECT_EQ(run.exit_code, 64) << run.err;
  EXPECT_NE(run.err.find("pass --price-in and --price-out"), std::string::npos) << run.err;
  EXPECT_EQ(model_.request_count(), 0U);
}

TEST_F(CostE2E, CachedTokensAreReadShownPerStepAndPricedAtTheCachedRate) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest&) {
    return ScriptedReply::text(++step < 3 ? R"({"scroll": "down"})" : R"({"done": "nine to five"})");
  });
  const auto run = run_vimgpt(args({"--prompt-cache", "on"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  const std::string key = requests[0].body.value("prompt_cache_key", "");
  EXPECT_FALSE(key.empty());
  EXPECT_EQ(requests[2].body.value("prompt_cache_key", ""), key);  // one key for the run
  const auto steps = read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_EQ(steps[0]["usage"]["cached_tokens"], 0);
  std::int64_t cached = 0;
  for (std::size_t i = 1; i < 3; ++i) {
    // The fake provider found this step's instructions in the previous request: from step 2 on they are read.
    EXPECT_GE(requests[i].cache.read, 1024) << i;
    EXPECT_EQ(steps[i]["usage"]["cached_tokens"], requests[i].cache.read) << i;
    const double prompt = requests[i].cache.prompt_tokens;
    const double read = requests[i].cache.read;
    EXPECT_NEAR(steps[i]["usage"]["cost_usd"].get<double>(), ((prompt - read) * 1.00 + read * 0.05 + 12 * 5.0) / 1e6,
                1e-9);
    cached += requests[i].cache.read;
  }
  EXPECT_EQ(run_json()["usage"]["cached_tokens"], cached);
  EXPECT_NE(run.err.find(" cached) $"), std::string::npos) << run.err;  // the progress line shows it
}

TEST_F(CostE2E, FramesTwoSendsThePreviousStepsFrameBeforeThisOne) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest&) {
    return ScriptedReply::text(++step < 3 ? R"({"scroll": "down"})" : R"({"done": true})");
  });
  const auto run = run_vimgpt(args({"--frames", "2"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_EQ(requests[0].images.size(), 1U);
  EXPECT_EQ(requests[1].images.size(), 2U);
  EXPECT_EQ(requests[2].images.size(), 2U);
  // The earlier frame is the one the previous request ended with, byte for byte.
  EXPECT_EQ(requests[1].images[0].bytes, requests[0].images[0].bytes);
  EXPECT_EQ(requests[2].images[0].bytes, requests[1].images[1].bytes);
  EXPECT_NE(requests[1].text.find("the last 2 steps, oldest first"), std::string::npos);
  EXPECT_TRUE(model_.problems().empty()) << model_.problems().front();
  const auto both = run_vimgpt(args({"--frames", "2", "--hint-mode", "both-frames"}));
  EXPECT_EQ(both.exit_code, 64);
  EXPECT_NE(both.err.find("choose one"), std::string::npos) << both.err;
}

TEST_F(CostE2E, ObserveTextSendsNoImageButTheLabelsAndTheVisibleText) {
  model_.set_responder([&](const test::ReceivedRequest& request) {
    return ScriptedReply::text(request.text.find("Open daily from nine to five.") != std::string::npos
                                   ? R"({"done": "nine to five"})"
                                   : R"({"done": "not found"})");
  });
  const auto run = run_vimgpt(args({"--observe", "text"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "nine to five\n");
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_TRUE(requests[0].images.empty());
  const std::string& text = requests[0].text;
  EXPECT_NE(text.find("There is no screenshot"), std::string::npos);
  EXPECT_NE(text.find("link \"Tickets\""), std::string::npos) << text;  // the hint list
  EXPECT_NE(text.find("Gallery 3 shows old maps."), std::string::npos);
  EXPECT_EQ(text.find("Far below the fold"), std::string::npos);  // only what the viewport shows
  EXPECT_EQ(text.find("typed-not-text"), std::string::npos);      // a field's value is not page text
  EXPECT_TRUE(fs::exists(record_ / read_steps(record_)[0]["frames"][0].get<std::string>()));  // still recorded
}

TEST(CostBatch, ResultsCarryTheBudgetsAndTheCachedTokens) {
  test::Site site;
  FakeModelServer model;
  model.set_default_reply(R"({"scroll": "down"})");
  test::BatchDir dir;
  auto args = test::batch_args(dir.tasks(site.base(), 2), dir.out(), model, 1, {});
  for (const char* flag : {"--max-cost", "0.004", "--max-tokens-total", "50000", "--api-key", "k"})
    args.emplace_back(flag);
  const auto run = run_vimgpt(args);
  const auto results = test::read_results(dir.out());
  ASSERT_EQ(results.size(), 2U) << run.err;
  for (const auto& line : results) {
    EXPECT_EQ(line["status"], "budget exhausted") << line.dump();
    EXPECT_EQ(line["max_cost_usd"], 0.004);
    EXPECT_EQ(line["max_tokens_total"], 50000);
    EXPECT_TRUE(line.contains("cached_tokens")) << line.dump();
    EXPECT_LE(line["cost_usd"].get<double>(), 0.004);
  }
}

}  // namespace
}  // namespace vimgpt
