// The vision client end to end against the fake OpenAI-compatible and Anthropic server on 127.0.0.1: what
// it sends (checked by the server), how it reads replies, repairs them, retries, falls back and fails.
#include "vision/vision.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <sstream>

#include "common/base64.h"
#include "support/fake_model_server.h"

namespace vimgpt::vision {
namespace {

using namespace std::chrono_literals;
using test::FakeModelServer;
using test::Requirement;
using test::ScriptedReply;

constexpr const char* kKey = "sk-test-secret-key-0123";

test::Expectations want(std::string model = {}, int image_width = 0, std::size_t images = 0,
                        Requirement structured = Requirement::Any) {
  test::Expectations expectations;
  expectations.api_key = kKey;
  expectations.model = std::move(model);
  expectations.image_width = image_width;
  expectations.images = images;
  expectations.structured = structured;
  return expectations;
}

Pixels page_pixels(int width, int height) {
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.data.assign(static_cast<std::size_t>(width) * height * 3, 255);
  for (std::size_t i = 0; i < pixels.data.size(); i += 7) pixels.data[i] = static_cast<std::uint8_t>(i % 200);
  return pixels;
}

EncodedImage screenshot(int width = 1280, int height = 800, ImageFormat format = ImageFormat::Png) {
  return *encode_image(page_pixels(width, height), format, 90);
}

struct Fixture {
  explicit Fixture(test::Expectations expect = want(std::string(kDefaultModel), 1080, 1)) : server(std::move(expect)) {
    options.base_url = server.url();
    options.api_key = kKey;
    options.image.width = 1080;  // the original's width: what these tests' servers expect
    options.retry.base_delay = 1ms;
    options.retry.sleep = [this](http::Milliseconds wait) { waits.push_back(wait); };
  }
  std::unique_ptr<Client> client() {
    auto created = Client::create(options);
    EXPECT_TRUE(created) << created.error().describe();
    return std::move(*created);
  }
  static StepRequest step(std::string objective = "search for cheap flights") {
    StepRequest request;
    request.objective = std::move(objective);
    request.images.push_back(screenshot());
    return request;
  }

  FakeModelServer server;
  ClientOptions options;
  std::vector<http::Milliseconds> waits;
};

TEST(VisionClient, OpenAIRequestIsCheckedAndTheReplyBecomesAnAction) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.options.detail = Detail::High;
  f.server.push_reply(R"({"click": "SD", "type": "flights to Lisbon"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
  EXPECT_EQ(decision->action, (Json{{"click", "SD"}, {"type", "flights to Lisbon"}}));
  EXPECT_EQ(decision->repair, Repair::None);
  EXPECT_TRUE(decision->unknown_keys.empty());

  const auto requests = f.server.requests();
  ASSERT_EQ(requests.size(), 1U);
  const auto& request = requests[0];
  EXPECT_EQ(request.path, "/v1/chat/completions");
  ASSERT_EQ(request.images.size(), 1U);
  EXPECT_EQ(request.images[0].declared_mime, "image/jpeg");  // the default format
  EXPECT_EQ(request.images[0].width, 1080);
  EXPECT_EQ(request.images[0].height, 675);
  EXPECT_EQ(request.images[0].detail, "high");
  EXPECT_NE(request.text.find("help a user do this task: search for cheap flights"), std::string::npos);
  EXPECT_EQ(request.body["max_tokens"], 300);
  EXPECT_FALSE(request.body.contains("temperature"));  // only standard fields, and only when asked
  EXPECT_FALSE(request.body.contains("response_format"));

  EXPECT_EQ(decision->estimated_image_tokens, 898);  // the default model's rule: 34 x 22 patches of 32 px, x 1.2
  EXPECT_EQ(decision->usage.prompt_tokens, 1000);
  EXPECT_EQ(decision->usage.completion_tokens, 12);
  EXPECT_NEAR(decision->usage.cost_usd, (1000 * 1.00 + 12 * 5.0) / 1e6, 1e-12);  // the catalogue's price
  const std::string metadata = decision->request_metadata.dump();
  EXPECT_EQ(metadata.find(kKey), std::string::npos);
  EXPECT_EQ(decision->request_metadata["images"][0]["width"], 1080);
  EXPECT_EQ(decision->request_metadata["attempts"], 1);
}

TEST(VisionClient, PngIsSentAsPngAtTheConfiguredWidth) {
  Fixture f(want("", 768));
  f.options.structured = Structured::Off;
  f.options.image = ImageOptions{768, ImageFormat::Png, 85};
  f.server.push_reply(R"({"scroll": "down"})");
  StepRequest step = Fixture::step();
  step.images[0].format = ImageFormat::Jpeg;  // mislabelled by the caller: the bytes decide
  auto decision = f.client()->decide(step);
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
  EXPECT_EQ(f.server.requests()[0].images[0].declared_mime, "image/png");
  EXPECT_EQ(decision->estimated_image_tokens, 432);  // 768x480: 24 x 15 patches x 1.2
}

TEST(VisionClient, BothFramesSendTwoImages) {
  Fixture f(want("", 1080, 2));
  f.options.structured = Structured::Off;
  f.server.push_reply(R"({"back": true})");
  StepRequest step = Fixture::step();
  step.images.push_back(screenshot(1080, 720, ImageFormat::Jpeg));
  auto decision = f.client()->decide(step);
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
  EXPECT_NE(f.server.requests()[0].text.find("the second shows the same page"), std::string::npos);
}

TEST(VisionClient, StructuredOutputSendsTheShortSchemaAndUnwrapsTheReply) {
  Fixture f(want("", 0, 0, Requirement::Required));
  f.options.structured = Structured::On;
  f.server.push_reply(R"({"click": "A"})");  // sent as the schema asks: {"action": {"click": "A"}}
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
  EXPECT_EQ(decision->raw_reply, R"({"action":{"click":"A"}})");
  EXPECT_EQ(decision->action, (Json{{"click", "A"}}));
  const Json format = f.server.requests()[0].body["response_format"];
  EXPECT_EQ(format["json_schema"]["strict"], true);
  EXPECT_EQ(format["json_schema"]["schema"], action_schema());
  EXPECT_EQ(decision->request_metadata["structured"], "json_schema");
}

TEST(VisionClient, AutoStructuredFallsBackOnceAndRemembers) {
  Fixture f(want());
  f.server.push(ScriptedReply::reject_response_format());
  f.server.push_reply(R"({"click": "B"})");
  f.server.push_reply(R"({"click": "C"})");
  auto client = f.client();
  EXPECT_TRUE(client->structured_active());
  auto first = client->decide(Fixture::step());
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->action, (Json{{"click", "B"}}));
  EXPECT_EQ(first->request_metadata["structured_fallback"], true);
  EXPECT_FALSE(client->structured_active());
  auto second = client->decide(Fixture::step());
  ASSERT_TRUE(second);
  EXPECT_EQ(second->action, (Json{{"click", "C"}}));
  const auto requests = f.server.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_TRUE(requests[0].structured);
  EXPECT_FALSE(requests[1].structured);
  EXPECT_FALSE(requests[2].structured);
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
}

TEST(VisionClient, StructuredOnDoesNotFallBack) {
  Fixture f(want());
  f.options.structured = Structured::On;
  f.server.push(ScriptedReply::reject_response_format());
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_FALSE(decision);
  EXPECT_EQ(decision.error().kind, ErrorKind::Http);
  EXPECT_NE(decision.error().message.find("response_format"), std::string::npos) << decision.error().message;
  EXPECT_EQ(f.server.request_count(), 1U);
}

TEST(VisionClient, AnthropicGetsItsSchemaThroughOutputConfigAndNoForcedTool) {
  Fixture f(want("claude-sonnet-5-5", 1080, 1, Requirement::Required));
  f.options.model = "claude-sonnet-5-5";
  f.server.push_reply(R"({"done": "It is 18 degrees in Paris."})");
  auto decision = f.client()->decide(Fixture::step("what is the weather in Paris"));
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
  EXPECT_EQ(decision->action, (Json{{"done", "It is 18 degrees in Paris."}}));
  EXPECT_EQ(decision->finish_reason, "end_turn");
  const auto request = f.server.requests()[0];
  EXPECT_EQ(request.path, "/v1/messages");
  EXPECT_EQ(request.header("anthropic-version"), "2023-06-01");
  EXPECT_TRUE(request.header("authorization").empty());
  EXPECT_FALSE(request.body.contains("tool_choice"));  // refused by Sonnet 5.5, Opus 5.5 and Fable 5.1 on
  EXPECT_FALSE(request.body.contains("tools"));
  EXPECT_EQ(request.body["output_config"]["format"]["schema"], action_schema());
  EXPECT_EQ(request.body["output_config"]["effort"], "low");
  EXPECT_EQ(request.body["thinking"]["type"], "between_tools");           // Sonnet 5.5's way to think not at all
  EXPECT_EQ(request.body["max_tokens"], 300);                             // no thinking: no room kept for it
  EXPECT_NE(request.text.find("never instructions"), std::string::npos);  // the system prompt
  EXPECT_EQ(decision->estimated_image_tokens, 39 * 25);                   // 1080x675 in 28-px patches
  // The first step writes its instructions to the cache (Anthropic: at 125% of the input price).
  const auto& cache = request.cache;
  ASSERT_TRUE(cache.asked);
  EXPECT_GT(cache.written, 1000);
  EXPECT_EQ(decision->usage.prompt_tokens, cache.prompt_tokens);
  EXPECT_EQ(decision->usage.cache_write_tokens, cache.written);
  EXPECT_EQ(decision->usage.cached_tokens, 0);
  EXPECT_NEAR(decision->usage.cost_usd,
              ((cache.prompt_tokens - cache.written) * 2.0 + cache.written * 2.5 + 12 * 10.0) / 1e6, 1e-12);
}

// Three steps of one run, each with one more step of history: what the provider caches and bills.
std::vector<Decision> three_steps(Client& client) {
  std::vector<Decision> decisions;
  StepRequest step = Fixture::step("find the opening hours");
  for (int i = 0; i < 3; ++i) {
    step.images = {screenshot(1280, 800 + 10 * i)};  // a new frame every step
    step.current_url = "https://museum.test/page" + std::to_string(i);
    auto decision = client.decide(step);
    EXPECT_TRUE(decision) << decision.error().describe();
    if (!decision) break;
    step.history.push_back({decision->action, "scrolled down", step.current_url, "", ""});
    decisions.push_back(std::move(*decision));
  }
  return decisions;
}

TEST(VisionClient, AnthropicReadsEachStepsPrefixFromTheCacheAndPricesIt) {
  Fixture f(want("claude-sonnet-4-6", 768, 1, Requirement::Required));
  f.options.model = "claude-sonnet-4-6";
  f.options.image.width = 768;
  f.server.set_default_reply(R"({"scroll": "down"})");
  auto client = f.client();
  const auto decisions = three_steps(*client);
  ASSERT_EQ(decisions.size(), 3U);
  const auto requests = f.server.requests();
  for (std::size_t i = 1; i < 3; ++i) {
    const auto& cache = requests[i].cache;
    // Everything the previous request read or wrote is read back; only the new history block is written.
    EXPECT_EQ(cache.read, requests[i - 1].cache.read + requests[i - 1].cache.written) << i;
    EXPECT_GT(cache.written, 0) << i;
    EXPECT_LT(cache.written, 100) << i;
    EXPECT_GT(static_cast<double>(cache.read) / cache.prompt_tokens, 0.6) << i;
    EXPECT_EQ(decisions[i].usage.cached_tokens, cache.read);
    const double expected = ((cache.prompt_tokens - cache.read - cache.written) * 3.0 + cache.read * 0.30 +
                             cache.written * 3.75 + 12 * 15.0) /
                            1e6;
    EXPECT_NEAR(decisions[i].usage.cost_usd, expected, 1e-12) << i;
  }
  // The breakpoints: the system prompt, and the last block before this step's page.
  const Json& body = requests[2].body;
  EXPECT_TRUE(body["system"][0].contains("cache_control"));
  const Json& content = body["messages"][0]["content"];
  std::vector<std::size_t> marked;
  for (std::size_t i = 0; i < content.size(); ++i) {
    if (content[i].contains("cache_control")) marked.push_back(i);
  }
  EXPECT_EQ(marked, std::vector<std::size_t>{2}) << content.dump().substr(0, 400);  // instructions, step 1, step 2
  EXPECT_EQ(content.back()["type"], "image");
  EXPECT_EQ(client->usage().cached_tokens, requests[1].cache.read + requests[2].cache.read);
}

TEST(VisionClient, OpenAIGetsOneCacheKeyPerClientAndItsCachedTokensAreCounted) {
  Fixture f;
  f.options.prompt_cache = PromptCache::On;
  f.server.set_default_reply(R"({"scroll": "down"})");
  auto client = f.client();
  const auto decisions = three_steps(*client);
  ASSERT_EQ(decisions.size(), 3U);
  const auto requests = f.server.requests();
  const std::string key = requests[0].body.value("prompt_cache_key", "");
  EXPECT_TRUE(key.starts_with("vimgpt-")) << key;
  EXPECT_EQ(requests[2].body.value("prompt_cache_key", ""), key);
  EXPECT_EQ(requests[0].cache.read, 0);
  EXPECT_GE(requests[2].cache.read, 1024);
  EXPECT_EQ(decisions[2].usage.cached_tokens, requests[2].cache.read);
  const auto& cache = requests[2].cache;
  EXPECT_NEAR(decisions[2].usage.cost_usd,
              ((cache.prompt_tokens - cache.read) * 1.00 + cache.read * 0.05 + 12 * 5.0) / 1e6, 1e-12);
  // Another client (another run) gets another key; off sends none; auto sends one only to api.openai.com.
  EXPECT_NE(f.client()->prepare(Fixture::step())->body.find("prompt_cache_key"), std::string::npos);
  f.options.prompt_cache = PromptCache::Auto;
  EXPECT_EQ(f.client()->prepare(Fixture::step())->body.find("prompt_cache_key"), std::string::npos);
}

// A model whose tokenizer vimgpt does not carry: its text is bounded at a token per 3 bytes (a model vimgpt carries the
// tokenizer of is bounded by it: vision_tokenizer_test).
TEST(VisionClient, TheEstimateIsAnUpperBoundOfWhatTheRequestCosts) {
  Fixture f(want("my-vision-model", 1080, 1));
  f.options.model = "my-vision-model";
  f.options.price_in = 1.00;
  f.options.price_out = 5.0;
  f.options.structured = Structured::Off;
  f.server.push(ScriptedReply::text(R"({"scroll": "down"})"));
  auto client = f.client();
  const StepRequest step = Fixture::step();
  const auto estimate = client->estimate(step);
  ASSERT_TRUE(estimate) << estimate.error().describe();
  ASSERT_TRUE(client->decide(step));
  // The fake server counts a token per 4 bytes of text; the estimate one per 3, plus max_tokens of reply.
  const auto sent = f.server.requests()[0].cache;
  EXPECT_GE(estimate->prompt_tokens, sent.prompt_tokens);
  EXPECT_LT(estimate->prompt_tokens, sent.prompt_tokens * 2);
  EXPECT_EQ(estimate->completion_tokens, 300);
  EXPECT_NEAR(estimate->cost_usd, (static_cast<double>(estimate->prompt_tokens) * 1.00 + 300 * 5.0) / 1e6, 1e-12);
}

// A reasoning model (gpt-6.2-sol with OpenAI's rules: 300 of reply and a reasoning allowance, $2/M in, $10/M out):
// fitted to what the budgets leave, the request keeps its whole cap when that fits, gives up reasoning room to fit,
// never the reply's own 300, and is sent with the cap it was fitted to.
TEST(VisionClient, ARequestIsFittedToTheBudgetByItsReasoningRoomOnly) {
  auto expect = want("", 0, 0, Requirement::Any);
  expect.service = test::Service::OpenAI;
  Fixture f(expect);
  f.options.model = "gpt-6.2-sol";
  f.options.provider = Provider::OpenAI;  // OpenAI's rules (a loopback URL would get a compatible server's)
  f.options.structured = Structured::Off;
  auto client = f.client();
  StepRequest step = Fixture::step();
  const auto whole = client->estimate(step);
  ASSERT_TRUE(whole) << whole.error().describe();
  ASSERT_GT(whole->completion_tokens, 2300);  // 300 and the reasoning allowance
  const double prompt_cost = static_cast<double>(whole->prompt_tokens) * 2.0 / 1e6;

  const auto roomy = client->fit(step, {whole->cost_usd, std::nullopt});
  ASSERT_TRUE(roomy);
  EXPECT_EQ(roomy->max_tokens, 0);  // the model's own cap
  const auto by_cost = client->fit(step, {prompt_cost + 1000 * 10.0 / 1e6, std::nullopt});
  ASSERT_TRUE(by_cost);
  EXPECT_NEAR(by_cost->max_tokens, 1000, 1);
  EXPECT_LE(by_cost->bound.cost_usd, prompt_cost + 1000 * 10.0 / 1e6);
  const auto by_tokens = client->fit(step, {std::nullopt, whole->prompt_tokens + 2000});
  ASSERT_TRUE(by_tokens);
  EXPECT_EQ(by_tokens->max_tokens, 2000);
  const auto too_little = client->fit(step, {prompt_cost + 299 * 10.0 / 1e6, std::nullopt});
  ASSERT_TRUE(too_little);
  EXPECT_EQ(too_little->max_tokens, -1);
  EXPECT_EQ(too_little->bound.completion_tokens, 300);

  step.max_tokens = by_cost->max_tokens;
  f.server.push(ScriptedReply::text(R"({"scroll": "down"})"));
  ASSERT_TRUE(client->decide(step));
  EXPECT_EQ(f.server.requests()[0].body["max_completion_tokens"], by_cost->max_tokens);
}

TEST(VisionClient, AnthropicTextReplyWithoutStructuredOutput) {
  Fixture f(want("", 0, 0, Requirement::Forbidden));
  f.options.model = "claude-haiku-5-5";
  f.options.structured = Structured::Off;
  f.server.push_reply("```json\n{\"click\": \"F\"}\n```");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
  EXPECT_EQ(decision->action, (Json{{"click", "F"}}));
  EXPECT_EQ(decision->repair, Repair::Local);
}

TEST(VisionClient, EveryCorpusReplyThroughTheServerBecomesItsAction) {
  std::ifstream file(std::string(VIMGPT_FIXTURES_DIR) + "/replies/corpus.json");
  std::ostringstream text;
  text << file.rdbuf();
  const Json corpus = Json::parse(text.str());
  Fixture f;
  f.options.structured = Structured::Off;
  f.options.image.width = 0;  // keep the small test image as it is
  f.server.expect(want());
  auto client = f.client();
  StepRequest step;
  step.objective = "anything";
  step.images.push_back(screenshot(64, 40, ImageFormat::Jpeg));
  for (const auto& entry : corpus["cases"]) {
    f.server.push_reply(entry["reply"]);
    auto decision = client->decide(step);
    ASSERT_TRUE(decision) << entry["name"] << ": " << decision.error().describe();
    EXPECT_EQ(decision->action, entry["action"]) << entry["name"];
    EXPECT_EQ(decision->repair, Repair::Local) << entry["name"];
    EXPECT_EQ(decision->raw_reply, entry["reply"]);
  }
  EXPECT_EQ(f.server.request_count(), corpus["cases"].size());  // no repair calls were needed
  EXPECT_EQ(client->usage().requests, static_cast<int>(corpus["cases"].size()));
}

TEST(VisionClient, AnUnreadableReplyGetsOneRepairCall) {
  Fixture f(want());
  f.options.structured = Structured::Off;
  f.options.repair_model = "gpt-4o-mini";
  f.server.push_reply("I think you should click the search box, which has the label AB.");
  f.server.push_reply(R"({"click": "AB"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "AB"}}));
  EXPECT_EQ(decision->repair, Repair::Model);
  EXPECT_EQ(decision->raw_reply, "I think you should click the search box, which has the label AB.");
  EXPECT_EQ(decision->repair_reply, R"({"click": "AB"})");
  const auto requests = f.server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[1].model, "gpt-4o-mini");
  EXPECT_TRUE(requests[1].images.empty());  // text only
  EXPECT_NE(requests[1].text.find("which has the label AB"), std::string::npos);
  EXPECT_EQ(decision->usage.requests, 2);
}

TEST(VisionClient, AReplyThatCannotBeRepairedIsAParseErrorWithTheRawText) {
  Fixture f(want());
  f.options.structured = Structured::Off;
  f.server.push_reply("Sorry, I cannot see the page.");
  f.server.push_reply("Still no JSON, sorry.");
  auto client = f.client();
  auto decision = client->decide(Fixture::step());
  ASSERT_FALSE(decision);
  EXPECT_EQ(decision.error().kind, ErrorKind::Parse);
  EXPECT_NE(decision.error().message.find("unparseable reply"), std::string::npos);
  EXPECT_NE(decision.error().message.find("Sorry, I cannot see the page."), std::string::npos);
  EXPECT_EQ(f.server.request_count(), 2U);
  EXPECT_EQ(client->usage().requests, 2);  // paid for even though it failed
}

TEST(VisionClient, AReplyCutByTheTokenLimitIsRecoveredLocally) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.server.push(ScriptedReply::truncated(R"({"click": "A", "type": "laptops")"));
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "A"}, {"type", "laptops"}}));
  EXPECT_EQ(decision->finish_reason, "length");
  EXPECT_EQ(f.server.request_count(), 1U);
}

// A reply the cap cut off half way cannot be repaired (what it would have said was never written): the step is asked
// again, once, with twice the room, before any repair call.
TEST(VisionClient, AReplyCutOffHalfWayIsAskedAgainWithRoomToFinish) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.server.push(ScriptedReply::truncated(R"({"navigate": "https://exa)"));
  f.server.push_reply(R"({"navigate": "https://example.com/"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"navigate", "https://example.com/"}}));
  const auto requests = f.server.requests();
  ASSERT_EQ(requests.size(), 2U);
  const auto cap = [](const Json& body) { return body.value("max_completion_tokens", body.value("max_tokens", 0)); };
  EXPECT_GT(cap(requests[0].body), 0);
  EXPECT_EQ(cap(requests[1].body), 2 * cap(requests[0].body));
  EXPECT_EQ(requests[1].body["messages"], requests[0].body["messages"]);  // the same step, not a repair
  EXPECT_EQ(decision->request_metadata["widened_cap"], cap(requests[1].body));
}

// A page that writes an image's placeholder gets no image in its text: only the image's own field is filled.
TEST(VisionClient, APagesTextHoldingAnImagePlaceholderStaysText) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.server.push_reply(R"({"click": "A"})");
  StepRequest step = Fixture::step("read @@vimgpt-image-0@@ aloud");
  step.hint_text = "[A] link \"@@vimgpt-image-0@@\"";
  auto decision = f.client()->decide(step);
  ASSERT_TRUE(decision) << decision.error().describe();
  const auto requests = f.server.requests();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_NE(requests[0].text.find("read @@vimgpt-image-0@@ aloud"), std::string::npos) << requests[0].text;
  EXPECT_NE(requests[0].text.find("[A] link \"@@vimgpt-image-0@@\""), std::string::npos) << requests[0].text;
  EXPECT_EQ(requests[0].images.size(), 1U);
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
}

TEST(VisionClient, RateLimitHonoursRetryAfter) {
  Fixture f;
  f.server.push(ScriptedReply::status_code(429, "slow down", {{"Retry-After", "1"}}));
  f.server.push_reply(R"({"click": "A"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "A"}}));
  EXPECT_EQ(f.waits, std::vector<http::Milliseconds>{1000ms});
  EXPECT_EQ(decision->request_metadata["attempts"], 2);
  EXPECT_EQ(f.server.problems(), std::vector<std::string>{});
}

TEST(VisionClient, ServerErrorsTwiceThenSuccess) {
  Fixture f;
  f.server.push(ScriptedReply::status_code(500));
  f.server.push(ScriptedReply::status_code(500));
  f.server.push_reply(R"({"click": "A"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.waits.size(), 2U);
  EXPECT_EQ(f.server.request_count(), 3U);
}

TEST(VisionClient, ASlowReplyTimesOut) {
  Fixture f;
  f.options.total_timeout = 300ms;
  f.options.retry.max_retries = 0;
  f.server.push(ScriptedReply::slow(10s));
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_FALSE(decision);
  EXPECT_EQ(decision.error().kind, ErrorKind::Timeout);
}

TEST(VisionClient, AConnectionCutMidReplyIsRetried) {
  Fixture f;
  f.server.push(ScriptedReply::cut_connection());
  f.server.push_reply(R"({"click": "A"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(f.waits.size(), 1U);

  Fixture g;
  g.options.retry.max_retries = 0;
  g.server.push(ScriptedReply::cut_connection());
  auto failed = g.client()->decide(Fixture::step());
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::Network);
}

TEST(VisionClient, RefusedKeyIsNotRetriedAndNotShown) {
  Fixture f;
  f.server.push(ScriptedReply::status_code(401, std::string("Incorrect API key provided: ") + kKey));
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_FALSE(decision);
  EXPECT_EQ(decision.error().kind, ErrorKind::Http);
  EXPECT_NE(decision.error().message.find("API key was refused"), std::string::npos) << decision.error().message;
  EXPECT_EQ(decision.error().message.find(kKey), std::string::npos) << decision.error().message;
  EXPECT_EQ(f.server.request_count(), 1U);
  EXPECT_TRUE(f.waits.empty());
}

TEST(VisionClient, UnknownModelSaysWhichModelAndWhere) {
  Fixture f(want());
  f.options.model = "gpt-5o";
  f.server.push(ScriptedReply::status_code(404, "The model `gpt-5o` does not exist"));
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_FALSE(decision);
  EXPECT_NE(decision.error().message.find("model gpt-5o at " + f.server.url() + " was not found"), std::string::npos)
      << decision.error().message;
  EXPECT_EQ(f.server.request_count(), 1U);
}

TEST(VisionClient, NoChoicesAndOversizedRepliesAreErrors) {
  Fixture f;
  f.server.push(ScriptedReply::no_choices());
  auto empty = f.client()->decide(Fixture::step());
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().kind, ErrorKind::Http);
  EXPECT_NE(empty.error().message.find("no choices"), std::string::npos);

  Fixture g;
  g.options.max_response_bytes = std::size_t{64} * 1024;
  g.server.push(ScriptedReply::oversized(std::size_t{1024} * 1024));
  auto big = g.client()->decide(Fixture::step());
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("exceeded"), std::string::npos) << big.error().message;
  EXPECT_EQ(g.server.request_count(), 1U);
}

TEST(VisionClient, FormalizeModeKeepsBothReplies) {
  Fixture f(want());
  f.options.formalize_model = "gpt-4o-mini";
  f.options.structured = Structured::Off;
  f.server.push_reply("Click the search box labelled SD and type 'flights to Lisbon'.");
  f.server.push_reply(R"({"click": "SD", "type": "flights to Lisbon"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "SD"}, {"type", "flights to Lisbon"}}));
  EXPECT_EQ(decision->raw_reply, "Click the search box labelled SD and type 'flights to Lisbon'.");
  EXPECT_EQ(decision->formalized_reply, R"({"click": "SD", "type": "flights to Lisbon"})");
  const auto requests = f.server.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[0].model, kDefaultModel);
  EXPECT_EQ(requests[0].images.size(), 1U);
  EXPECT_NE(requests[0].text.find("plain sentences"), std::string::npos);
  EXPECT_EQ(requests[1].model, "gpt-4o-mini");
  EXPECT_TRUE(requests[1].images.empty());
  EXPECT_NE(requests[1].text.find("labelled SD"), std::string::npos);
}

TEST(VisionClient, HistoryHintsAndSecretsReachTheModel) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.server.push_reply(R"({"click": "S", "type": "<secret:password>"})");
  StepRequest step = Fixture::step("log in");
  step.history.push_back({Json{{"click", "Q"}}, "", "https://site.test/", "no element with label Q", ""});
  step.hint_text = "S  textbox \"Password\"";
  step.secret_names = {"password"};
  auto decision = f.client()->decide(step);
  ASSERT_TRUE(decision) << decision.error().describe();
  const std::string text = f.server.requests()[0].text;
  EXPECT_NE(text.find("FAILED: no element with label Q"), std::string::npos);
  EXPECT_NE(text.find("S  textbox \"Password\""), std::string::npos);
  EXPECT_NE(text.find("<secret:password>"), std::string::npos);
  EXPECT_EQ(decision->action["type"], "<secret:password>");
}

TEST(VisionClient, UsageIsSummedAndPricesCanBeOverridden) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.options.price_in = 1.0;
  f.options.price_out = 2.0;
  f.server.set_default_reply(R"({"scroll": "down"})");
  auto client = f.client();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client->decide(Fixture::step()));
  const Usage usage = client->usage();
  EXPECT_EQ(usage.requests, 3);
  EXPECT_EQ(usage.prompt_tokens, 3000);
  EXPECT_EQ(usage.completion_tokens, 36);
  EXPECT_TRUE(usage.cost_known);
  EXPECT_NEAR(usage.cost_usd, (3000 * 1.0 + 36 * 2.0) / 1e6, 1e-12);
}

TEST(VisionClient, UnknownKeysAreReported) {
  Fixture f;
  f.options.structured = Structured::Off;
  f.server.push_reply(R"({"click": "A", "thought": "the search box"})");
  auto decision = f.client()->decide(Fixture::step());
  ASSERT_TRUE(decision);
  EXPECT_EQ(decision->unknown_keys, std::vector<std::string>{"thought"});
}

TEST(VisionClient, AskSendsOneSavedScreenshot) {
  FakeModelServer server(want("", ImageOptions{}.width, 1));
  server.push_reply(R"({"click": "A"})");
  ClientOptions options;
  options.base_url = server.url();
  options.api_key = kKey;
  auto decision = ask(options, screenshot(), "open the first link");
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "A"}}));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

// The benchmark's fake model reads only each image's header; the tests' decodes it whole, so a cut image
// is a problem there.
TEST(FakeModel, ACutImageIsAProblemOnlyWhenImagesAreDecoded) {
  std::string cut = screenshot(1080, 720).bytes;
  cut.resize(cut.size() / 2);
  const Json body = {
      {"model", "m"},
      {"messages",
       Json::array(
           {{{"role", "user"},
             {"content", Json::array({{{"type", "image_url"},
                                       {"image_url", {{"url", "data:image/png;base64," + base64_encode(cut)}}}}})}}})}};
  for (const bool decode : {true, false}) {
    test::Expectations expectations;
    expectations.decode_images = decode;
    FakeModelServer server(expectations);
    server.push_reply(R"({"done": null})");
    httplib::Client client("127.0.0.1", server.port());
    auto response = client.Post("/v1/chat/completions", body.dump(), "application/json");
    ASSERT_TRUE(response);
    ASSERT_EQ(server.requests().size(), 1U);
    EXPECT_EQ(server.requests()[0].images.at(0).width, decode ? 0 : 1080);
    EXPECT_EQ(server.problems().empty(), !decode) << decode;
  }
}

TEST(VisionClient, CreateRejectsUnusableOptions) {
  ClientOptions options;  // hosted OpenAI, no key
  auto missing_key = Client::create(options);
  ASSERT_FALSE(missing_key);
  EXPECT_NE(missing_key.error().message.find("OPENAI_API_KEY"), std::string::npos);
  options.model = "claude-sonnet-5-5";
  EXPECT_NE(Client::create(options).error().message.find("ANTHROPIC_API_KEY"), std::string::npos);
  options.base_url = "localhost:11434/v1";
  EXPECT_EQ(Client::create(options).error().kind, ErrorKind::InvalidArgument);
  options.base_url = "http://127.0.0.1:11434/v1/";  // a local server needs no key
  auto local = Client::create(options);
  ASSERT_TRUE(local);
  EXPECT_EQ((*local)->options().base_url, "http://127.0.0.1:11434/v1");
}

TEST(VisionClient, PrepareBuildsTheBodyWithoutSending) {
  Fixture f;
  f.options.structured = Structured::Off;
  auto prepared = f.client()->prepare(Fixture::step());
  ASSERT_TRUE(prepared) << prepared.error().describe();
  EXPECT_EQ(prepared->url, f.server.url() + "/chat/completions");
  EXPECT_EQ(prepared->images.at(0).width, 1080);
  const Json body = Json::parse(prepared->body);
  const Json& parts = body["messages"][1]["content"];
  ASSERT_EQ(parts.back().value("type", ""), "image_url") << parts.dump();  // the image follows every text block
  const std::string url = parts.back()["image_url"]["url"];
  EXPECT_TRUE(url.starts_with("data:image/jpeg;base64,/9j/"));
  EXPECT_EQ(prepared->body.find(kKey), std::string::npos);
  EXPECT_EQ(f.server.request_count(), 0U);
}

}  // namespace
}  // namespace vimgpt::vision
