// Every model of the catalogue against a fake that refuses what its real service refuses (support/
// provider_contract.h): what vimgpt sends each family, how it reads their replies and usage, and how it tells
// their errors apart. A regression against a documented rule is a refusal here, and a failed test.
#include <gtest/gtest.h>
#include <httplib.h>
#include <algorithm>
#include <functional>

#include "support/fake_model_server.h"
#include "support/provider_contract.h"
#include "vision/dialect.h"
#include "vision/provider.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

using namespace std::chrono_literals;
using test::FakeModelServer;
using test::ScriptedReply;
using test::Service;

constexpr const char* kKey = "sk-contract-key-0123";

EncodedImage frame(int width = 768, int height = 512, ImageFormat format = ImageFormat::Jpeg) {
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.data.assign(static_cast<std::size_t>(width) * height * 3, 255);
  for (std::size_t i = 0; i < pixels.data.size(); i += 5) pixels.data[i] = static_cast<std::uint8_t>(i * 7 % 251);
  return *encode_image(pixels, format, 85);
}

StepRequest step(EncodedImage image = frame()) {
  StepRequest request;
  request.objective = "open the museum's opening hours";
  request.images.push_back(std::move(image));
  return request;
}

bool googles(const std::string& model) {
  const ModelSpec* spec = find_model(model);
  return spec != nullptr && spec->provider == vimgpt::vision::Provider::Gemini;
}

// A fake playing `model`'s own provider, and a client for it with that provider's rules.
struct Served {
  explicit Served(const std::string& model, Service service = Service::OpenAI)
      : server([&] {
          test::Expectations want;
          want.api_key = kKey;
          want.model = model;
          want.service = googles(model) ? Service::Gemini : service;
          return want;
        }()) {
    const ModelSpec* spec = find_model(model);
    options.provider = spec != nullptr ? spec->provider : vimgpt::vision::Provider::OpenAI;
    options.model = model;
    options.base_url = googles(model) ? server.gemini_url() : server.url();
    options.api_key = kKey;
    options.retry.base_delay = 1ms;
    options.retry.sleep = [this](http::Milliseconds wait) { waits.push_back(wait); };
  }
  std::unique_ptr<Client> client() {
    auto created = Client::create(options);
    EXPECT_TRUE(created) << created.error().describe();
    return created ? std::move(*created) : nullptr;
  }
  FakeModelServer server;
  ClientOptions options;
  std::vector<http::Milliseconds> waits;
};

bool usable(const ModelSpec& spec) {
  return spec.status != ModelStatus::Retired;
}

std::vector<std::string> usable_models() {
  std::vector<std::string> ids;
  for (const auto& spec : model_catalogue()) {
    // The open families speak their own dialects: vision_dialect_test holds them to their servers' contract.
    if (usable(spec) && !spec.dialect) ids.push_back(spec.id);
  }
  return ids;
}

// ---- The catalogue itself ----------------------------------------------------------------------------------

TEST(Catalogue, EveryEntryIsSourcedAndEveryReplacementIsAModelToUse) {
  EXPECT_EQ(catalogue_read_on().size(), 10U);
  ASSERT_GT(model_catalogue().size(), 40U);
  for (const auto& spec : model_catalogue()) {
    EXPECT_FALSE(spec.sources.empty()) << spec.id;
    if (spec.status == ModelStatus::Retired || spec.status == ModelStatus::Deprecated) {
      EXPECT_FALSE(spec.shutdown.empty()) << spec.id;
    }
    if (!spec.replacement.empty()) {
      const ModelSpec* replacement = find_model(spec.replacement);
      ASSERT_NE(replacement, nullptr) << spec.id << " -> " << spec.replacement;
      EXPECT_TRUE(usable(*replacement)) << spec.id << " -> " << spec.replacement;
      EXPECT_NE(replacement->status, ModelStatus::Deprecated) << spec.id << " -> " << spec.replacement;
    }
    if (usable(spec) && spec.provider == vimgpt::vision::Provider::Anthropic) {
      EXPECT_EQ(spec.token_limit, "max_tokens") << spec.id;
    }
    if (usable(spec) && spec.provider == vimgpt::vision::Provider::OpenAI) {
      // What api.openai.com takes of every model, on each of its two APIs.
      EXPECT_EQ(spec.token_limit, spec.api == ModelApi::Responses ? "max_output_tokens" : "max_completion_tokens")
          << spec.id;
    }
    if (spec.provider == vimgpt::vision::Provider::Gemini) {
      // Google's structured output ignores anyOf, which the action schema needs (models.json "gem-schema").
      EXPECT_EQ(spec.structured, StructuredMethod::None) << spec.id;
      EXPECT_EQ(spec.token_limit, "max_tokens") << spec.id;
    }
  }
}

TEST(Catalogue, TheDefaultsAreCurrentVisionModelsWithAPrice) {
  for (const std::string_view id : {kDefaultModel, kDefaultAnthropicModel}) {
    const ModelSpec* spec = find_model(id);
    ASSERT_NE(spec, nullptr) << id;
    EXPECT_EQ(spec->status, ModelStatus::Active) << id;
    EXPECT_TRUE(spec->shutdown.empty()) << id;
    EXPECT_TRUE(spec->price.has_value()) << id;
    EXPECT_NE(spec->structured, StructuredMethod::None) << id;
  }
  EXPECT_EQ(ClientOptions{}.model, kDefaultModel);
  const ModelSpec* gemini = find_model(kDefaultGeminiModel);
  ASSERT_NE(gemini, nullptr);
  EXPECT_EQ(gemini->status, ModelStatus::Active);
  EXPECT_TRUE(gemini->shutdown.empty());
  EXPECT_TRUE(gemini->price.has_value());
}

// Every model with a computer tool says which mode it is best in, and why, with the why's sources among its own;
// a model without one (gpt-5.6-sol, whose family's models with the tool are best in it) has labels only.
TEST(Catalogue, EveryModelWithAComputerToolSaysWhichModeItIsBestIn) {
  int with_tool = 0;
  for (const auto& spec : model_catalogue()) {
    EXPECT_EQ(spec.best_mode.has_value(), spec.computer_tool.has_value()) << spec.id;
    if (!spec.best_mode) continue;
    ++with_tool;
    EXPECT_GT(spec.best_mode->why.size(), 40U) << spec.id;
    EXPECT_EQ(best_mode(spec.id), spec.best_mode->mode) << spec.id;
  }
  EXPECT_GT(with_tool, 20);
  EXPECT_EQ(best_mode("computer-use-preview"), InteractionMode::ComputerUse);
  EXPECT_EQ(best_mode("gpt-5.4"), InteractionMode::ComputerUse);
  EXPECT_EQ(best_mode("claude-sonnet-5-5"), InteractionMode::Labels);
  EXPECT_EQ(best_mode("claude-opus-4-8"), InteractionMode::Labels);
  EXPECT_EQ(best_mode("gemini-3.8-flash"), InteractionMode::Labels);
  EXPECT_EQ(best_mode("gpt-5.6-sol"), InteractionMode::Labels);
  EXPECT_EQ(best_mode("qwen3-vl:8b"), InteractionMode::Labels);
  EXPECT_EQ(best_mode("no-such-model"), InteractionMode::Labels);
  // The Claude toolset's reason is Anthropic's own words about its browser tool, so that page is among the sources.
  const ModelSpec* claude = find_model("claude-opus-4-8");
  ASSERT_NE(claude, nullptr);
  EXPECT_NE(claude->best_mode->why.find("4,500"), std::string::npos) << claude->best_mode->why;
  EXPECT_TRUE(std::any_of(claude->sources.begin(), claude->sources.end(), [](const std::string& source) {
    return source.find("browser-use-tool") != std::string::npos;
  }));
}

// ---- Each family gets a request its service accepts --------------------------------------------------------

class EveryModel : public ::testing::TestWithParam<std::string> {};

// With a temperature asked for (which some families refuse), structured output on auto, one frame: the service
// accepts the request, its reasoning fits the cap, and the short reply becomes the action.
TEST_P(EveryModel, ItsServiceAcceptsTheRequestAndItsReplyBecomesTheAction) {
  const ModelSpec& spec = *find_model(GetParam());
  Served p(spec.id);
  p.options.temperature = 0.2;
  p.server.push_reply(R"({"click": "A"})");
  auto client = p.client();
  ASSERT_NE(client, nullptr);
  auto decision = client->decide(step());
  ASSERT_TRUE(decision) << spec.id << ": " << decision.error().describe();
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{}) << spec.id;
  EXPECT_EQ(p.server.request_count(), 1U) << spec.id << ": nothing was refused and asked again";
  EXPECT_EQ(decision->action, (Json{{"click", "A"}})) << spec.id;
  // The reply as it came: the schema's wrapped form, or the plain action where no schema was sent (Gemini).
  const char* raw = spec.structured == StructuredMethod::None ? R"({"click": "A"})" : R"({"action":{"click":"A"}})";
  EXPECT_EQ(decision->raw_reply, raw) << spec.id;
  EXPECT_GE(decision->usage.completion_tokens, 12) << spec.id;
  const Json body = p.server.requests()[0].body;
  const bool anthropic = spec.provider == vimgpt::vision::Provider::Anthropic;
  if (anthropic) {
    EXPECT_TRUE(body["output_config"].contains("format")) << spec.id;
    EXPECT_FALSE(body.contains("tool_choice")) << spec.id;
    EXPECT_EQ(body["output_config"].value("effort", ""), spec.effort) << spec.id;
  } else if (spec.api == ModelApi::Responses) {
    EXPECT_EQ(p.server.requests()[0].path, "/v1/responses") << spec.id;
    EXPECT_EQ(body.value("max_output_tokens", 0), 300 + spec.reasoning_reserve) << spec.id;
    EXPECT_FALSE(body.contains("reasoning")) << spec.id << ": it reasons at a level of its own";
    EXPECT_EQ(body["store"], false) << spec.id;
  } else if (spec.provider == vimgpt::vision::Provider::Gemini) {
    EXPECT_EQ(p.server.requests()[0].path, "/v1beta/openai/chat/completions") << spec.id;
    EXPECT_EQ(body.value("max_tokens", 0), 300 + spec.reasoning_reserve) << spec.id;
    EXPECT_FALSE(body.contains("response_format")) << spec.id;
    EXPECT_FALSE(p.server.requests()[0].raw_body.find("\"detail\"") != std::string::npos) << spec.id;
    EXPECT_EQ(body.value("reasoning_effort", ""), spec.effort) << spec.id;
  } else {
    EXPECT_FALSE(body.contains("max_tokens")) << spec.id;
    EXPECT_TRUE(body.contains("max_completion_tokens")) << spec.id;
    EXPECT_TRUE(body.contains("response_format")) << spec.id;
    EXPECT_EQ(body.value("reasoning_effort", ""), spec.effort) << spec.id;
  }
  // The temperature goes only where the model takes it, and the person is told when it does not.
  const bool temperature_sent = body.contains("temperature");
  const auto notices = client->notices();
  const bool dropped_notice = std::any_of(notices.begin(), notices.end(), [](const std::string& notice) {
    return notice.find("takes no temperature") != std::string::npos;
  });
  EXPECT_NE(temperature_sent, dropped_notice) << spec.id;
  EXPECT_EQ(decision->usage.reasoning_tokens > 0, decision->usage.completion_tokens > 12) << spec.id;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, EveryModel, ::testing::ValuesIn(usable_models()),
                         [](const ::testing::TestParamInfo<std::string>& model) {
                           std::string name = model.param;
                           for (auto& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(Requests, WithNoEffortAReasoningModelSpendsItsCapThinkingAndTheStepIsAskedAgainWithMoreRoom) {
  // gpt-6.2-sol at its default effort (medium, as the fake reasons: 2,500 tokens) against a 300-token cap is the
  // starved step of issue 29; vimgpt sends effort low with room for it, and widens the cap once when a reply
  // is cut off before any answer anyway.
  Served p("gpt-6.2-sol");
  p.server.push(ScriptedReply::text(R"({"click": "A"})"));
  auto client = p.client();
  auto decision = client->decide(step());
  ASSERT_TRUE(decision) << decision.error().describe();
  const Json body = p.server.requests()[0].body;
  EXPECT_EQ(body["reasoning_effort"], "low");
  EXPECT_EQ(body["max_completion_tokens"], 300 + 4096);
  EXPECT_FALSE(decision->request_metadata.contains("widened_cap"));

  ScriptedReply long_thought = ScriptedReply::text(R"({"click": "B"})");
  long_thought.reasoning_tokens = 6000;  // more than the cap: cut off with no answer
  p.server.push(long_thought);
  ScriptedReply after = ScriptedReply::text(R"({"click": "B"})");
  after.reasoning_tokens = 6000;
  p.server.push(after);
  auto widened = client->decide(step());
  ASSERT_TRUE(widened) << widened.error().describe();
  EXPECT_EQ(widened->action, (Json{{"click", "B"}}));
  EXPECT_EQ(widened->request_metadata["widened_cap"], 2 * (300 + 4096));
  EXPECT_EQ(p.server.requests()[2].body["max_completion_tokens"], 2 * (300 + 4096));
  EXPECT_EQ(widened->usage.requests, 2);  // both paid for
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});

  ScriptedReply endless = ScriptedReply::text(R"({"click": "C"})");
  endless.reasoning_tokens = 100000;
  p.server.push(endless);
  p.server.push(endless);
  auto starved = client->decide(step());
  ASSERT_FALSE(starved);
  EXPECT_NE(starved.error().message.find("before answering, twice: raise --max-tokens or lower --effort"),
            std::string::npos)
      << starved.error().message;
}

TEST(Requests, AnAnthropicModelThatAlwaysThinksGetsEffortLowAndRoomToThink) {
  Served p("claude-opus-5-5");
  p.server.push_reply(R"({"scroll": "down"})");
  auto decision = p.client()->decide(step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});
  const Json body = p.server.requests()[0].body;
  EXPECT_FALSE(body.contains("thinking"));  // cannot be turned off: 400
  EXPECT_EQ(body["output_config"]["effort"], "low");
  EXPECT_EQ(body["max_tokens"], 300 + 2048);
  EXPECT_GT(decision->usage.reasoning_tokens, 0);
  EXPECT_EQ(decision->action, (Json{{"scroll", "down"}}));
}

TEST(Requests, EffortIsCheckedAgainstWhatTheModelTakes) {
  ClientOptions options;
  options.api_key = kKey;
  options.model = "gpt-6.2-sol";
  options.effort = "none";
  auto refused = Client::create(options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::InvalidArgument);
  EXPECT_NE(refused.error().message.find("takes --effort low, medium, high, xhigh, not \"none\""), std::string::npos)
      << refused.error().message;
  options.model = "gpt-4o";
  options.effort = "low";
  EXPECT_NE(Client::create(options).error().message.find("takes no reasoning effort"), std::string::npos);
  options.model = "gpt-6.1-terra";
  options.effort = "high";
  auto taken = Client::create(options);
  ASSERT_TRUE(taken);
  auto prepared = (*taken)->prepare(step());
  ASSERT_TRUE(prepared);
  EXPECT_NE(prepared->body.find(R"("reasoning_effort":"high")"), std::string::npos);
  EXPECT_NE(prepared->body.find(R"("max_completion_tokens":16684)"), std::string::npos);  // reasons now: 4096 x 4
}

TEST(Requests, RetiredModelsAreRefusedBeforeAnyRequestWithWhatToUse) {
  ClientOptions options;
  options.api_key = kKey;
  options.model = "claude-3-5-sonnet-20241022";
  const auto retired = Client::create(options);
  ASSERT_FALSE(retired);
  EXPECT_NE(retired.error().message.find("retired on 2025-10-28"), std::string::npos) << retired.error().message;
  EXPECT_NE(retired.error().message.find("Use claude-sonnet-5-5 instead"), std::string::npos);
  // Behind a gateway the provider's own retirement may not apply: a notice, not a refusal.
  options.base_url = "http://127.0.0.1:9/anthropic";
  auto gateway = Client::create(options);
  ASSERT_TRUE(gateway);
  ASSERT_EQ((*gateway)->notices().size(), 1U);
  EXPECT_NE((*gateway)->notices()[0].find("this gateway may still serve it"), std::string::npos);
}

TEST(Requests, AnUnknownModelGetsSafeDefaultsAndOneNoticeNamingThePriceFlags) {
  ClientOptions options;
  options.base_url = "http://127.0.0.1:11434/v1";
  options.model = "llava:13b";
  auto client = Client::create(options);
  ASSERT_TRUE(client);
  ASSERT_EQ((*client)->notices().size(), 1U);
  EXPECT_NE((*client)->notices()[0].find("--price-in and --price-out"), std::string::npos);
  EXPECT_EQ((*client)->provider(), vimgpt::vision::Provider::Compatible);
  auto prepared = (*client)->prepare(step());
  ASSERT_TRUE(prepared);
  EXPECT_NE(prepared->body.find(R"("max_tokens":300)"), std::string::npos);  // what every compatible server reads
  EXPECT_EQ(prepared->body.find("reasoning_effort"), std::string::npos);
  // A model OpenAI's API does not know yet may reason: room for it, and no fields it may not take.
  options.base_url.clear();
  options.api_key = kKey;
  options.model = "gpt-7-nova";
  auto unknown = Client::create(options);
  ASSERT_TRUE(unknown);
  EXPECT_NE((*unknown)->prepare(step())->body.find(R"("max_completion_tokens":4396)"), std::string::npos);
}

// ---- OpenAI's Responses API ---------------------------------------------------------------------------------

// A Responses-only model is asked on /v1/responses in that API's shape: the system prompt as instructions, the text
// blocks as input_text and the frame as input_image with its detail, one cap for reasoning and reply, nothing kept on
// OpenAI's side; its usage (cache reads and writes, reasoning) is read and priced as on Chat Completions.
TEST(Responses, AResponsesOnlyModelIsAskedInThatApisShapeAndItsUsageIsReadAndPriced) {
  Served p("gpt-5.5-pro");
  p.options.prompt_cache = PromptCache::On;
  p.options.cache_key = "run-1";
  p.options.detail = Detail::Low;
  p.server.set_default_reply(R"({"click": "A"})");
  auto client = p.client();
  StepRequest request = step();
  request.history.push_back({Json{{"scroll", "down"}}, std::string(3000, 'x'), "https://museum.test/", "", ""});
  auto first = client->decide(request);
  ASSERT_TRUE(first) << first.error().describe();
  auto second = client->decide(request);
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});
  ASSERT_EQ(p.server.request_count(), 2U);
  const auto received = p.server.requests();
  const Json& body = received[0].body;
  EXPECT_EQ(received[0].path, "/v1/responses");
  EXPECT_NE(body.value("instructions", "").find("browser"), std::string::npos) << body.value("instructions", "");
  ASSERT_EQ(body["input"].size(), 1U);
  const Json& content = body["input"][0]["content"];
  EXPECT_EQ(content.front()["type"], "input_text");
  EXPECT_EQ(content.back()["type"], "input_image");
  EXPECT_EQ(content.back()["detail"], "low");
  ASSERT_EQ(received[0].images.size(), 1U);
  EXPECT_EQ(received[0].images[0].width, 768);
  EXPECT_EQ(body["max_output_tokens"], 300 + 8192);
  EXPECT_EQ(body["store"], false);
  EXPECT_EQ(body["prompt_cache_key"], "run-1");
  EXPECT_EQ(first->action, (Json{{"click", "A"}}));
  // The second step read the first one's prefix from the cache; the fake reasons at the model's default (high).
  const auto cache = received[1].cache;
  ASSERT_GT(cache.read, 1024);
  EXPECT_EQ(second->usage.cached_tokens, cache.read);
  EXPECT_EQ(second->usage.cache_write_tokens, cache.written);
  EXPECT_EQ(second->usage.prompt_tokens, cache.prompt_tokens);
  EXPECT_EQ(second->usage.reasoning_tokens, 7000);
  EXPECT_EQ(second->usage.completion_tokens, 7012);
  // gpt-5.5-pro: $30 in, $3 cached, $30 a cache write, $180 out.
  EXPECT_NEAR(second->usage.cost_usd,
              ((cache.prompt_tokens - cache.read - cache.written) * 30.0 + cache.read * 3.0 + cache.written * 30.0 +
               7012 * 180.0) /
                  1e6,
              1e-12);
}

// An incomplete response (the cap spent reasoning) is asked again with more room; a refusal, a content filter and a
// failed response are errors that say so.
TEST(Responses, IncompleteRefusedAndFailedResponsesAreToldApart) {
  Served p("gpt-5.5-pro");
  auto client = p.client();
  ScriptedReply long_thought = ScriptedReply::text(R"({"click": "B"})");
  long_thought.reasoning_tokens = 9000;  // more than 300 + 8192: cut off with no answer
  p.server.push(long_thought);
  p.server.push(long_thought);
  auto widened = client->decide(step());
  ASSERT_TRUE(widened) << widened.error().describe();
  EXPECT_EQ(widened->action, (Json{{"click", "B"}}));
  EXPECT_EQ(p.server.requests()[1].body["max_output_tokens"], 2 * (300 + 8192));
  EXPECT_EQ(widened->usage.requests, 2);

  p.server.push(ScriptedReply::refusal("I can't help with that."));
  auto refused = client->decide(step());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::Refused);
  EXPECT_NE(refused.error().message.find("I can't help with that."), std::string::npos) << refused.error().message;

  ScriptedReply filtered;
  filtered.raw_body = R"({"id": "resp_1", "object": "response", "status": "incomplete", "output": [],
                          "incomplete_details": {"reason": "content_filter"}})";
  p.server.push(filtered);
  auto stopped = client->decide(step());
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().kind, ErrorKind::Refused);
  EXPECT_NE(stopped.error().message.find("content filter"), std::string::npos) << stopped.error().message;

  ScriptedReply failed;
  failed.raw_body = R"({"id": "resp_2", "object": "response", "status": "failed", "output": [],
                        "error": {"code": "server_error", "message": "The model failed to finish."}})";
  p.server.push(failed);
  auto broken = client->decide(step());
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("The model failed to finish."), std::string::npos) << broken.error().message;

  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});
}

// ---- Errors told apart -------------------------------------------------------------------------------------

std::string openai_error(std::string message, std::string type, std::string param, std::string code) {
  return Json{{"error", {{"message", message}, {"type", type}, {"param", param}, {"code", code}}}}.dump();
}

ScriptedReply raw(int status, std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  ScriptedReply reply = ScriptedReply::status_code(status, "", std::move(headers));
  reply.raw_body = std::move(body);
  return reply;
}

TEST(Errors, A400ThatDoesNotNameStructuredOutputIsShownNotTakenForIt) {
  Served p("gpt-6.1-terra");
  p.server.push(raw(400, openai_error("Invalid 'messages[1].content': string too long.", "invalid_request_error",
                                      "messages", "string_above_max_length")));
  auto client = p.client();
  auto decision = client->decide(step());
  ASSERT_FALSE(decision);
  EXPECT_NE(decision.error().message.find("string too long"), std::string::npos) << decision.error().message;
  EXPECT_EQ(decision.error().message.find(kKey), std::string::npos);
  EXPECT_EQ(p.server.request_count(), 1U);  // not asked again without the schema
  EXPECT_TRUE(client->structured_active());
}

TEST(Errors, StructuredOutputIsLeftOutOnlyWhenTheErrorNamesIt) {
  Served openai("gpt-6.1-terra");
  openai.server.push(raw(400, openai_error("Invalid parameter: 'response_format' of type 'json_schema' is not "
                                           "supported with this model.",
                                           "invalid_request_error", "response_format", "")));
  openai.server.push_reply(R"({"click": "B"})");
  auto client = openai.client();
  auto decision = client->decide(step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "B"}}));
  EXPECT_EQ(decision->request_metadata["structured_fallback"], true);
  EXPECT_FALSE(client->structured_active());
  EXPECT_FALSE(openai.server.requests()[1].structured);

  Served anthropic("claude-haiku-5-5");
  anthropic.server.push(raw(400, Json{{"type", "error"},
                                      {"error",
                                       {{"type", "invalid_request_error"},
                                        {"message",
                                         "output_config.format.schema: Invalid schema: The compiled grammar "
                                         "is too large, which would cause performance issues."}}}}
                                     .dump()));
  anthropic.server.push_reply(R"({"click": "C"})");
  auto decided = anthropic.client()->decide(step());
  ASSERT_TRUE(decided) << decided.error().describe();
  EXPECT_EQ(decided->action, (Json{{"click", "C"}}));
  EXPECT_FALSE(anthropic.server.requests()[1].body.contains("output_config") &&
               anthropic.server.requests()[1].body["output_config"].contains("format"));
}

TEST(Errors, AFieldTheServerRefusesByNameIsLeftOutFromThenOnAndThePersonTold) {
  // A server the catalogue does not describe: the temperature asked for is refused, by name.
  Served p("my-model", Service::Compatible);
  p.options.temperature = 0.3;
  p.server.push(raw(400, openai_error("Unsupported parameter: 'temperature' is not supported with this model.",
                                      "invalid_request_error", "temperature", "unsupported_parameter")));
  p.server.push_reply(R"({"click": "A"})");
  p.server.push_reply(R"({"click": "B"})");
  auto client = p.client();
  ASSERT_TRUE(client->decide(step()));
  ASSERT_TRUE(client->decide(step()));
  const auto requests = p.server.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_TRUE(requests[0].body.contains("temperature"));
  EXPECT_FALSE(requests[1].body.contains("temperature"));
  EXPECT_FALSE(requests[2].body.contains("temperature"));  // remembered
  const auto notices = client->notices();
  EXPECT_NE(notices.back().find("the server refused temperature"), std::string::npos) << notices.back();
}

TEST(Errors, QuotaAndSpendLimitsAreNotRetriedAndSaySo) {
  Served openai("gpt-6.1-terra");
  openai.server.push(
      raw(429, openai_error("You exceeded your current quota, please check your plan and billing details.",
                            "insufficient_quota", "", "project_spend_limit_exceeded")));
  auto quota = openai.client()->decide(step());
  ASSERT_FALSE(quota);
  EXPECT_EQ(openai.server.request_count(), 1U);
  EXPECT_TRUE(openai.waits.empty());
  EXPECT_NE(quota.error().message.find("quota, credit or a spend limit"), std::string::npos) << quota.error().message;
  EXPECT_NE(quota.error().message.find("project_spend_limit_exceeded"), std::string::npos);

  Served anthropic("claude-sonnet-5-5");
  anthropic.server.push(
      raw(400, Json{{"type", "error"},
                    {"error",
                     {{"type", "invalid_request_error"},
                      {"message",
                       "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
                       "Billing to upgrade or purchase credits."}}}}
                   .dump()));
  auto credit = anthropic.client()->decide(step());
  ASSERT_FALSE(credit);
  EXPECT_EQ(anthropic.server.request_count(), 1U);
  EXPECT_NE(credit.error().message.find("credit balance is too low"), std::string::npos) << credit.error().message;
}

TEST(Errors, OverloadedConflictAndTimeoutsAreRetriedAndXShouldRetryIsObeyed) {
  Served p("claude-sonnet-5-5");
  p.server.push(ScriptedReply::status_code(529, "Overloaded"));
  p.server.push(ScriptedReply::status_code(409, "conflict"));
  p.server.push(ScriptedReply::status_code(408, "timeout"));
  p.server.push_reply(R"({"click": "A"})");
  auto client = p.client();
  auto decision = client->decide(step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(p.server.request_count(), 4U);
  EXPECT_EQ(p.waits.size(), 3U);

  Served q("claude-sonnet-5-5");
  q.server.push(ScriptedReply::status_code(500, "do not come back", {{"x-should-retry", "false"}}));
  ASSERT_FALSE(q.client()->decide(step()));
  EXPECT_EQ(q.server.request_count(), 1U);

  Served r("claude-sonnet-5-5");
  r.server.push(ScriptedReply::status_code(400, "try me again", {{"x-should-retry", "true"}}));
  r.server.push_reply(R"({"click": "A"})");
  ASSERT_TRUE(r.client()->decide(step()));
  EXPECT_EQ(r.server.request_count(), 2U);
}

TEST(Errors, RefusalsAndContextWindowsAreClearErrors) {
  Served anthropic("claude-sonnet-5-5");
  anthropic.server.push(ScriptedReply::refusal("the page asks for something the model will not do"));
  auto refused = anthropic.client()->decide(step());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::Refused);
  EXPECT_NE(refused.error().message.find("the page asks for something"), std::string::npos);

  Served openai("gpt-6.1-terra");
  openai.server.push(ScriptedReply::refusal("I can't help with that."));
  auto declined = openai.client()->decide(step());
  ASSERT_FALSE(declined);
  EXPECT_EQ(declined.error().kind, ErrorKind::Refused);

  openai.server.push(raw(400, openai_error("Your input exceeds the context window of this model.",
                                           "invalid_request_error", "messages", "context_length_exceeded")));
  auto too_long = openai.client()->decide(step());
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.error().message.find("lower --history or --frames"), std::string::npos)
      << too_long.error().message;
}

// ---- What Anthropic's API refuses of a request -------------------------------------------------------------

TEST(AnthropicRequests, AskSendsNoEmptyBlockAndTheSdksBaseUrlWorks) {
  Served p("claude-sonnet-5-5");
  // ANTHROPIC_BASE_URL as the official SDKs take it: the host, no /v1.
  p.options.base_url = "http://127.0.0.1:" + std::to_string(p.server.port());
  p.server.push_reply(R"({"click": "A"})");
  auto decision = ask(p.options, frame(), "open the first link");
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});  // an empty text block would be refused
  EXPECT_EQ(p.server.requests()[0].path, "/v1/messages");
}

TEST(AnthropicRequests, ImagesAreMadeToFitItsLimits) {
  Served p("claude-sonnet-5-5");
  p.options.image = ImageOptions{0, ImageFormat::Png, 85};  // send the frame as captured
  p.server.set_default_reply(R"({"scroll": "down"})");
  auto client = p.client();
  // Wider than 8000 px; then noise that no PNG compresses below 5 MB of base64.
  auto wide = client->decide(step(frame(9000, 300, ImageFormat::Png)));
  ASSERT_TRUE(wide) << wide.error().describe();
  auto noisy_pixels = [] {
    Pixels pixels;
    pixels.width = 2000;
    pixels.height = 1500;
    pixels.data.resize(static_cast<std::size_t>(pixels.width) * pixels.height * 3);
    std::uint32_t state = 7;
    for (auto& byte : pixels.data) {
      state = state * 1664525U + 1013904223U;
      byte = static_cast<std::uint8_t>(state >> 24);
    }
    return pixels;
  }();
  const EncodedImage noisy = *encode_image(noisy_pixels, ImageFormat::Png, 85);
  ASSERT_GT((noisy.bytes.size() + 2) / 3 * 4, std::size_t{5242880});
  auto big = client->decide(step(noisy));
  ASSERT_TRUE(big) << big.error().describe();
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});
  const auto requests = p.server.requests();
  EXPECT_EQ(requests[0].images[0].width, 8000);
  EXPECT_LE(requests[1].images[0].base64_bytes, std::size_t{5242880});
  EXPECT_EQ(requests[1].images[0].declared_mime, "image/jpeg");
}

TEST(AnthropicRequests, ThinkingIsTurnedOffTheWayEachModelTakes) {
  for (const auto& [model, thinking] :
       std::vector<std::pair<std::string, std::string>>{{"claude-haiku-5-5", "disabled"},
                                                        {"claude-sonnet-5-5", "between_tools"},
                                                        {"claude-opus-5-5", ""},
                                                        {"claude-sonnet-4-6", ""}}) {
    Served p(model);
    p.server.push_reply(R"({"click": "A"})");
    ASSERT_TRUE(p.client()->decide(step())) << model;
    const Json body = p.server.requests()[0].body;
    EXPECT_EQ(body.value("thinking", Json::object()).value("type", ""), thinking) << model;
    EXPECT_EQ(p.server.problems(), std::vector<std::string>{}) << model;
  }
  // Above effort high, thinking cannot be turned off: it stays on, with room for that effort (2048 at low,
  // twice as much a level up).
  Served high("claude-haiku-5-5");
  high.options.effort = "max";
  high.server.push_reply(R"({"click": "A"})");
  const auto decided = high.client()->decide(step());
  ASSERT_TRUE(decided) << decided.error().describe();
  EXPECT_FALSE(high.server.requests()[0].body.contains("thinking"));
  EXPECT_EQ(high.server.requests()[0].body["max_tokens"], 300 + 2048 * 16);
  EXPECT_EQ(high.server.problems(), std::vector<std::string>{});
}

// ---- What the provider reports, counted and priced ---------------------------------------------------------

TEST(Usage, OpenAIsCacheWritesAndReasoningAreReadAndPriced) {
  Served p("gpt-6.2-sol");
  p.options.prompt_cache = PromptCache::On;
  p.server.set_default_reply(R"({"scroll": "down"})");
  auto client = p.client();
  StepRequest request = step();
  request.history.push_back({Json{{"scroll", "down"}}, std::string(3000, 'x'), "https://museum.test/", "", ""});
  auto decision = client->decide(request);
  ASSERT_TRUE(decision) << decision.error().describe();
  const auto cache = p.server.requests()[0].cache;
  ASSERT_GT(cache.written, 1024);
  EXPECT_EQ(decision->usage.cache_write_tokens, cache.written);
  EXPECT_EQ(decision->usage.reasoning_tokens, 600);  // effort low, as the fake reasons
  EXPECT_EQ(decision->usage.completion_tokens, 612);
  // gpt-6.2-sol: $2 in, $0.10 cached, $2.50 a cache write, $10 out.
  EXPECT_NEAR(decision->usage.cost_usd,
              ((cache.prompt_tokens - cache.written) * 2.0 + cache.written * 2.5 + 612 * 10.0) / 1e6, 1e-12);
  EXPECT_EQ(to_json(decision->usage)["reasoning_tokens"], 600);
}

// ---- The fake refuses what the real services refuse (so the tests above can fail) -------------------------

nlohmann::json post(FakeModelServer& server, const std::string& path, const Json& body, int& status) {
  httplib::Client http("127.0.0.1", server.port());
  const auto response = http.Post(
      path,
      {{"x-api-key", kKey}, {"anthropic-version", "2023-06-01"}, {"authorization", std::string("Bearer ") + kKey}},
      body.dump(), "application/json");
  status = response ? response->status : 0;
  return response ? Json::parse(response->body, nullptr, false) : Json();
}

Json openai_body(const std::string& model, Json extra = Json::object()) {
  Json body = {{"model", model},
               {"messages", Json::array({{{"role", "user"}, {"content", "hi"}}})},
               {"max_completion_tokens", 300}};
  body.update(extra);
  return body;
}

Json anthropic_body(const std::string& model, Json extra = Json::object()) {
  Json body = {
      {"model", model},
      {"max_tokens", 300},
      {"messages", Json::array({{{"role", "user"}, {"content", Json::array({{{"type", "text"}, {"text", "hi"}}})}}})}};
  body.update(extra);
  return body;
}

// A request the fake must refuse: the status, and the field the error names (empty: none).
struct RefusalCase {
  Json body;
  int status;
  std::string param;
};

void expect_refused(FakeModelServer& server, const std::string& path, const std::vector<RefusalCase>& cases) {
  int status = 0;
  for (const auto& c : cases) {
    const Json reply = post(server, path, c.body, status);
    EXPECT_EQ(status, c.status) << c.body.dump();
    if (!c.param.empty()) {
      EXPECT_EQ(reply["error"]["param"], c.param) << reply.dump();
    }
  }
}

TEST(FakeContracts, OpenAIsRulesAreEnforced) {
  test::Expectations want;
  want.service = Service::OpenAI;
  FakeModelServer server(want);
  server.set_default_reply(R"({"done": true})");
  const std::vector<RefusalCase> cases = {
      {openai_body("gpt-6.1-terra", {{"max_tokens", 300}}), 400, "max_tokens"},
      {openai_body("gpt-6.2-sol", {{"reasoning_effort", "none"}}), 400, "reasoning_effort"},
      {openai_body("gpt-6.2-sol", {{"temperature", 0.2}}), 400, "temperature"},
      {openai_body("gpt-6.1-terra", {{"temperature", 0.2}}), 400, "temperature"},  // reasoning at its default
      {openai_body("gpt-4o", {{"reasoning_effort", "low"}}), 400, "reasoning_effort"},
      {openai_body("gpt-5-pro"), 400, "model"},
      {openai_body("o4-mini"), 404, ""},
      {openai_body("gpt-6.1-terra", {{"response_format",
                                      {{"type", "json_schema"},
                                       {"json_schema",
                                        {{"name", "x"},
                                         {"strict", true},
                                         {"schema",
                                          {{"type", "object"},
                                           {"properties", {{"a", {{"type", "string"}}}}},
                                           {"additionalProperties", false}}}}}}}}),
       400, "response_format"},  // "a" not required
  };
  expect_refused(server, "/v1/chat/completions", cases);
  // What the rules allow is answered, with its reasoning counted.
  int status = 0;
  const Json ok = post(server, "/v1/chat/completions",
                       openai_body("gpt-6.1-terra", {{"reasoning_effort", "none"}, {"temperature", 0.2}}), status);
  EXPECT_EQ(status, 200) << ok.dump();
  EXPECT_EQ(server.problems().size(), cases.size());
}

Json responses_body(const std::string& model, Json extra = Json::object()) {
  Json body = {
      {"model", model},
      {"input",
       Json::array({{{"role", "user"}, {"content", Json::array({{{"type", "input_text"}, {"text", "hi"}}})}}})},
      {"max_output_tokens", 300}};
  body.update(extra);
  return body;
}

TEST(FakeContracts, TheResponsesApisRulesAreEnforced) {
  test::Expectations want;
  want.service = Service::OpenAI;
  FakeModelServer server(want);
  server.set_default_reply(R"({"done": true})");
  const Json chat_part = Json::array(
      {{{"role", "user"}, {"content", Json::array({{{"type", "image_url"}, {"image_url", {{"url", "x"}}}}})}}});
  const std::string image = "data:image/jpeg;base64," + http::base64_encode(frame().bytes);
  const Json no_detail =
      Json::array({{{"role", "user"}, {"content", Json::array({{{"type", "input_image"}, {"image_url", image}}})}}});
  const std::vector<RefusalCase> cases = {
      {responses_body("gpt-5.5-pro", {{"messages", Json::array()}}), 400, "messages"},
      {responses_body("gpt-5.5-pro", {{"max_completion_tokens", 300}}), 400, "max_completion_tokens"},
      {responses_body("gpt-6.1-terra", {{"reasoning_effort", "low"}}), 400, "reasoning_effort"},
      {responses_body("gpt-6.1-terra", {{"response_format", {{"type", "json_object"}}}}), 400, "response_format"},
      {responses_body("gpt-5.5-pro", {{"input", chat_part}}), 400, "input[0].content[0].type"},
      {responses_body("gpt-5.5-pro", {{"input", no_detail}}), 400, "input[0].content[0].detail"},
      {responses_body("gpt-5.5-pro", {{"max_output_tokens", 10}}), 400, "max_output_tokens"},
      {responses_body("gpt-5.5-pro", {{"reasoning", {{"effort", "low"}}}}), 400, "reasoning.effort"},
      {responses_body("gpt-6.2-sol", {{"reasoning", {{"effort", "none"}}}}), 400, "reasoning.effort"},
      {responses_body("gpt-5.5-pro", {{"temperature", 0.2}}), 400, "temperature"},
      {responses_body("gpt-6.1-terra", {{"text",
                                         {{"format",
                                           {{"type", "json_schema"},
                                            {"name", "x"},
                                            {"strict", true},
                                            {"schema",
                                             {{"type", "object"},
                                              {"properties", {{"a", {{"type", "string"}}}}},
                                              {"additionalProperties", false}}}}}}}}),
       400, "text.format"},  // "a" not required
      {responses_body("o4-mini"), 404, ""},
  };
  expect_refused(server, "/v1/responses", cases);
  // What the rules allow is answered in the API's shape, its reasoning counted.
  int status = 0;
  const Json ok = post(server, "/v1/responses", responses_body("gpt-5.5-pro", {{"max_output_tokens", 8492}}), status);
  EXPECT_EQ(status, 200) << ok.dump();
  ASSERT_EQ(ok["status"], "completed") << ok.dump();
  EXPECT_EQ(ok["output"].back()["content"][0]["text"], R"({"done": true})");
  EXPECT_GT(ok["usage"]["output_tokens_details"]["reasoning_tokens"].get<int>(), 0);
  EXPECT_EQ(server.problems().size(), cases.size());
}

TEST(FakeContracts, AnthropicsRulesAreEnforced) {
  FakeModelServer server;
  server.set_default_reply(R"({"done": true})");
  int status = 0;
  const Json empty_block = {
      {"messages", Json::array({{{"role", "user"}, {"content", Json::array({{{"type", "text"}, {"text", ""}}})}}})}};
  const Json cases[] = {
      anthropic_body("claude-sonnet-5-5", empty_block),
      anthropic_body("claude-opus-5-5", {{"thinking", {{"type", "disabled"}}}}),
      anthropic_body("claude-sonnet-5-5", {{"thinking", {{"type", "disabled"}}}}),
      anthropic_body("claude-opus-5-5",
                     {{"tools", Json::array({{{"name", "t"}, {"input_schema", {{"type", "object"}}}}})},
                      {"tool_choice", {{"type", "tool"}, {"name", "t"}}}}),
      anthropic_body("claude-haiku-5-5",
                     {{"tools", Json::array({{{"name", "t"}, {"input_schema", {{"type", "object"}}}}})},
                      {"tool_choice", {{"type", "tool"}, {"name", "t"}}}}),  // thinking on by default
      anthropic_body("claude-sonnet-5-5", {{"temperature", 0.2}}),
      anthropic_body("claude-haiku-4-5", {{"output_config", {{"effort", "low"}}}}),
      anthropic_body("claude-sonnet-5-5", {{"output_config",
                                            {{"format",
                                              {{"type", "json_schema"},
                                               {"schema",
                                                {{"type", "object"},
                                                 {"properties", {{"n", {{"type", "number"}, {"maximum", 10}}}}},
                                                 {"additionalProperties", false}}}}}}}}),
      anthropic_body("claude-3-5-sonnet-latest"),
  };
  for (const auto& body : cases) {
    post(server, "/v1/messages", body, status);
    EXPECT_GE(status, 400) << body.dump();
  }
  const Json ok = post(server, "/v1/messages",
                       anthropic_body("claude-sonnet-5-5", {{"thinking", {{"type", "between_tools"}}},
                                                            {"output_config", {{"effort", "low"}}}}),
                       status);
  EXPECT_EQ(status, 200) << ok.dump();
  EXPECT_EQ(server.problems().size(), std::size(cases));
  // Opus 5.5 always thinks: a 300-token cap at its default effort is spent before any answer.
  const Json starved = post(server, "/v1/messages", anthropic_body("claude-opus-5-5"), status);
  EXPECT_EQ(starved["stop_reason"], "max_tokens") << starved.dump();
  EXPECT_EQ(starved["content"].size(), 1U);
  EXPECT_EQ(starved["content"][0]["type"], "thinking");
}

// ---- Typed answers (--output-schema) -----------------------------------------------------------------------

const Json kTable = Json::parse(R"({
  "type": "array", "minItems": 2, "description": "the rows",
  "items": {"type": "object", "additionalProperties": false, "required": ["name", "price"],
            "properties": {"name": {"type": "string", "maxLength": 40},
                           "price": {"type": "number", "minimum": 0}}}})");

// Both services take the answer's schema inside done, bounds moved into words, and hold replies to it.
TEST(TypedAnswers, BothServicesTakeTheCarriedSchemaAndAnswerWithinIt) {
  for (const std::string_view model : {kDefaultModel, kDefaultAnthropicModel}) {
    Served p{std::string(model)};
    const Json rows = Json::parse(R"([{"name": "Kettle", "price": 29.9}, {"name": "Toaster", "price": 45}])");
    p.server.push_reply(Json{{"done", rows}}.dump());
    auto client = p.client();
    ASSERT_NE(client, nullptr);
    StepRequest typed = step();
    typed.answer_schema = kTable;
    auto decision = client->decide(typed);
    ASSERT_TRUE(decision) << model << ": " << decision.error().describe();
    EXPECT_EQ(p.server.problems(), std::vector<std::string>{}) << model;
    EXPECT_EQ(decision->action, (Json{{"done", rows}})) << model;
    const auto sent = p.server.requests()[0];
    EXPECT_EQ(sent.schema, action_schema(*carried_answer_schema(kTable))) << model;
    EXPECT_NE(sent.text.find(R"("minItems":2)"), std::string::npos) << "the whole schema is in the prompt";
  }
}

TEST(TypedAnswers, BoundsTravelInTheDescriptionAndWhatCannotBeCarriedIsNot) {
  const auto carried = carried_answer_schema(kTable);
  ASSERT_TRUE(carried);
  EXPECT_EQ((*carried)["description"], "the rows {minItems: 2}");
  EXPECT_FALSE(carried->contains("minItems"));
  EXPECT_EQ((*carried)["items"]["properties"]["price"], Json::parse(R"({"type": "number",
                                                                     "description": "{minimum: 0}"})"));
  EXPECT_EQ((*carried)["items"]["properties"]["name"]["description"], "{maxLength: 40}");
  EXPECT_EQ(carried_answer_schema(Json::parse(R"({"type": "array", "items": {"type": "string"}, "minItems": 1})"))
                ->at("minItems"),
            1);
  EXPECT_EQ(*carried_answer_schema(Json::parse(R"({"oneOf": [{"const": "a"}, {"type": "integer"}]})")),
            Json::parse(R"({"anyOf": [{"enum": ["a"]}, {"type": "integer"}]})"));
  // An object with no properties listed, closed: carried closed.
  EXPECT_EQ((*carried_answer_schema(Json::parse(R"({"type": "object", "properties": {"a": {"type": "string"}},
                                                   "required": ["a"]})")))["additionalProperties"],
            false);

  for (const char* cannot : {
           R"({"type": "object", "properties": {"a": {"type": "string"}}})",  // a is optional
           R"({"type": "object", "additionalProperties": true, "properties": {}, "required": []})",
           R"({"type": "object", "additionalProperties": {"type": "string"}})",
           R"({"type": ["string", "null"]})",
           R"({"type": "array"})",
           R"({"type": "array", "items": [{"type": "string"}]})",
           R"({"$ref": "#/definitions/a", "definitions": {"a": {"type": "string"}}})",
           R"({})",
           R"(true)",
       }) {
    EXPECT_FALSE(carried_answer_schema(Json::parse(cannot))) << cannot;
  }
  Json deep = {{"type", "string"}};
  for (int i = 0; i < 8; ++i) deep = {{"type", "array"}, {"items", deep}};
  EXPECT_FALSE(carried_answer_schema(deep)) << "past strict mode's depth";
}

// A schema the structured output cannot carry still reaches the model, in the prompt; done stays untyped.
TEST(TypedAnswers, ASchemaThatCannotBeCarriedGoesInThePromptOnly) {
  Served p{std::string(kDefaultModel)};
  p.server.push_reply(R"({"done": "{\"a\": 1}"})");
  auto client = p.client();
  ASSERT_NE(client, nullptr);
  StepRequest typed = step();
  typed.answer_schema = Json::parse(R"({"type": "object", "properties": {"a": {"type": "integer"}}})");
  auto decision = client->decide(typed);
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});
  EXPECT_EQ(p.server.requests()[0].schema, action_schema());
  EXPECT_NE(p.server.requests()[0].text.find(R"("properties":{"a":{"type":"integer"}})"), std::string::npos);
}

// ---- Google's Gemini, through its OpenAI-compatible endpoint -----------------------------------------------

TEST(Gemini, AGeminiNameGoesToGoogleAndTheSameNameBehindAnotherBaseUrlIsThatServersModel) {
  EXPECT_EQ(resolve_provider(vimgpt::vision::Provider::Auto, "gemini-3.8-flash"), vimgpt::vision::Provider::Gemini);
  EXPECT_EQ(resolve_provider(vimgpt::vision::Provider::Auto, "gpt-6.1-terra", kGeminiBaseUrl),
            vimgpt::vision::Provider::Gemini);
  EXPECT_EQ(resolve_provider(vimgpt::vision::Provider::Auto, "gemini-3.8-flash", "http://127.0.0.1:4000/v1"),
            vimgpt::vision::Provider::Compatible);
  EXPECT_EQ(*parse_provider("gemini"), vimgpt::vision::Provider::Gemini);
  EXPECT_EQ(key_variable(vimgpt::vision::Provider::Gemini), "GEMINI_API_KEY");

  ClientOptions options;
  options.model = "gemini-3.8-flash";
  const auto keyless = Client::create(options);
  ASSERT_FALSE(keyless);
  EXPECT_NE(keyless.error().message.find("set GEMINI_API_KEY"), std::string::npos) << keyless.error().message;
  options.api_key = kKey;
  EXPECT_EQ((*Client::create(options))->options().base_url, kGeminiBaseUrl);
  options.model = "gemini-3-pro-preview";
  const auto retired = Client::create(options);
  ASSERT_FALSE(retired);
  EXPECT_NE(retired.error().message.find("Use gemini-3.1-pro-preview instead"), std::string::npos)
      << retired.error().message;
  options.model = "gemini-3.8-flash";
  options.effort = "minimal";  // refused by Google's endpoint: refused here before any request
  const auto minimal = Client::create(options);
  ASSERT_FALSE(minimal);
  EXPECT_NE(minimal.error().message.find("takes --effort low, medium, high"), std::string::npos)
      << minimal.error().message;
}

TEST(Gemini, AWrongKeyIsToldWithTheVariableToSetAndIsNotRetried) {
  Served p("gemini-3.8-flash");
  p.options.api_key = "AIza-not-the-key";
  auto client = p.client();
  ASSERT_NE(client, nullptr);
  const auto decision = client->decide(step());
  ASSERT_FALSE(decision);
  const std::string& message = decision.error().message;
  EXPECT_NE(message.find("API key was refused"), std::string::npos) << message;
  EXPECT_NE(message.find("check GEMINI_API_KEY"), std::string::npos) << message;
  EXPECT_NE(message.find("API key not valid"), std::string::npos) << message;  // Google's own words, read from its list
  EXPECT_EQ(message.find("AIza-not-the-key"), std::string::npos) << message;
  EXPECT_EQ(p.server.request_count(), 1U);
  EXPECT_TRUE(p.waits.empty());
}

TEST(Gemini, OverloadAndRateLimitsInGooglesListAreRetriedThenTheStepGoesOn) {
  Served p("gemini-3.8-flash");
  p.server.push(ScriptedReply::status_code(503, "The model is overloaded. Please try again later."));
  p.server.push(ScriptedReply::status_code(429, "Resource has been exhausted (e.g. check quota)."));
  p.server.push_reply(R"({"click": "B"})");
  auto client = p.client();
  ASSERT_NE(client, nullptr);
  const auto decision = client->decide(step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "B"}}));
  EXPECT_EQ(p.waits.size(), 2U);
  EXPECT_EQ(p.server.request_count(), 3U);
  // A refusal the catalogue did not foresee names its field in Google's bare words: the field is left out, the
  // step asked again, and the person told. (The model then thinks at its default effort, past the cap: the reply
  // is starved and asked once more with twice the room.)
  p.server.push(ScriptedReply::status_code(400, "Invalid reasoning_effort: low. Valid values are: high"));
  p.server.push_reply(R"({"click": "D"})");
  p.server.push_reply(R"({"click": "D"})");
  const auto refused = client->decide(step());
  ASSERT_TRUE(refused) << refused.error().describe();
  EXPECT_EQ(refused->action, (Json{{"click", "D"}}));
  ASSERT_EQ(p.server.request_count(), 6U);
  EXPECT_FALSE(p.server.requests()[4].body.contains("reasoning_effort"));
  EXPECT_FALSE(p.server.requests()[5].body.contains("reasoning_effort"));
  const auto notices = client->notices();
  EXPECT_TRUE(std::any_of(notices.begin(), notices.end(), [](const std::string& notice) {
    return notice.find("refused reasoning_effort") != std::string::npos;
  }));
}

TEST(Gemini, ThinkingSpendsTheCapAndAStarvedReplyIsAskedAgainWithMoreRoom) {
  Served p("gemini-3.8-flash");
  ScriptedReply thought = ScriptedReply::text(R"({"click": "C"})");
  thought.reasoning_tokens = 3000;  // past 300 + 2048: cut off with no answer, as Google's are (HTTP 200, empty)
  p.server.push(thought);
  p.server.push(thought);
  auto client = p.client();
  ASSERT_NE(client, nullptr);
  const auto decision = client->decide(step());
  ASSERT_TRUE(decision) << decision.error().describe();
  EXPECT_EQ(decision->action, (Json{{"click", "C"}}));
  EXPECT_EQ(p.server.requests()[1].body["max_tokens"], 2 * (300 + 2048));
  EXPECT_EQ(p.server.problems(), std::vector<std::string>{});
}

TEST(Gemini, AnImageCostsTheSameTokensAtAnySize) {
  const ImageTokenRule& rule = find_model("gemini-3.8-flash")->images;
  EXPECT_EQ(estimate_image_tokens(rule, 1080, 720, Detail::Auto), 1120);
  EXPECT_EQ(estimate_image_tokens(rule, 1920, 1080, Detail::Auto), 1120);
  EXPECT_TRUE(find_model("gemini-4-argon")->images.estimated);
}

// The fake's rules for Anthropic's tool loop, each refusing what Anthropic refuses, and the request vimgpt builds in
// --mode computer-use passing them.
TEST(ToolLoopContract, AnthropicRefusesABrokenToolLoopAndTakesVimgptsRequest) {
  const nlohmann::json tool = {
      {"type", "computer_20251124"}, {"name", "computer"}, {"display_width_px", 540}, {"display_height_px", 360}};
  const nlohmann::json call = {
      {"type", "tool_use"}, {"id", "toolu_1"}, {"name", "computer"}, {"input", {{"action", "screenshot"}}}};
  const nlohmann::json answer = {
      {"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", {{{"type", "text"}, {"text", "ok"}}}}};
  nlohmann::json body = {{"model", "claude-opus-4-7"},  // takes the beta tool
                         {"max_tokens", 100},
                         {"tools", {tool}},
                         {"messages",
                          {{{"role", "user"}, {"content", "go"}},
                           {{"role", "assistant"}, {"content", {call}}},
                           {{"role", "user"}, {"content", {answer}}}}}};
  const std::string beta = "computer-use-2025-11-24";
  EXPECT_FALSE(test::anthropic_tool_refusal(body, beta));
  EXPECT_TRUE(test::anthropic_tool_refusal(body, ""));                         // no beta header
  EXPECT_TRUE(test::anthropic_tool_refusal(body, "computer-use-2025-01-24"));  // another version's
  nlohmann::json haiku = body;
  haiku["model"] = "claude-haiku-4-5";  // takes computer_20250124 only
  EXPECT_TRUE(test::anthropic_tool_refusal(haiku, beta));
  nlohmann::json unanswered = body;
  unanswered["messages"][2]["content"] = {{{"type", "text"}, {"text", "next"}}};
  const auto refused = test::anthropic_tool_refusal(unanswered, beta);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->message.find("without `tool_result` blocks immediately after: toolu_1"), std::string::npos);
  nlohmann::json stray = body;
  stray["messages"][2]["content"][0]["tool_use_id"] = "toolu_9";
  EXPECT_TRUE(test::anthropic_tool_refusal(stray, beta));
  nlohmann::json sized = body;
  sized["tools"][0]["display_width_px"] = 540.5;
  EXPECT_TRUE(test::anthropic_tool_refusal(sized, beta));

  // vimgpt's own request for a step after a call: the call back as the model wrote it, then its result.
  detail::ChatRequest request;
  request.provider = Provider::Anthropic;
  request.model = "claude-opus-4-7";
  request.turns = {{"system", "sys"}, {"user", "go"}, {"assistant", ""}, {"user", "The action: waited"}};
  request.turns[2].tool_uses = nlohmann::json::array({call});
  request.turns[3].tool_results = {"toolu_1"};
  request.extra_fields = {{"tools", {tool}}};
  request.beta = beta;
  const auto http = detail::build_anthropic_request(request);
  EXPECT_EQ(http.headers.get("anthropic-beta").value_or(""), beta);
  const auto sent = nlohmann::json::parse(http.body);
  EXPECT_FALSE(test::anthropic_tool_refusal(sent, beta)) << sent.dump();
  EXPECT_FALSE(test::anthropic_refusal(sent, {})) << sent.dump();
  EXPECT_EQ(sent["system"], "sys");
  EXPECT_EQ(sent["messages"][2]["content"][0]["tool_use_id"], "toolu_1");
}

// Anthropic's computer toolset: the fake refuses what Anthropic's pages say it refuses, and the request vimgpt builds
// for a step after a member's call (the tools entry, no beta header, the result naming the toolset) passes.
TEST(ToolLoopContract, AnthropicsToolsetRefusesTheSingleToolsShapeAndTakesVimgptsRequest) {
  const nlohmann::json toolset = {{"type", "computer_toolset_20260801"}};
  const nlohmann::json call = {{"type", "tool_use"},
                               {"id", "toolu_1"},
                               {"name", "left_click"},
                               {"toolset_name", "computer"},
                               {"input", {{"coordinate", {10, 20}}}}};
  const nlohmann::json answer = {{"type", "tool_result"},
                                 {"tool_use_id", "toolu_1"},
                                 {"toolset_name", "computer"},
                                 {"content", {{{"type", "text"}, {"text", "ok"}}}}};
  const nlohmann::json body = {{"model", "claude-opus-5-5"},
                               {"max_tokens", 100},
                               {"tools", {toolset}},
                               {"messages",
                                {{{"role", "user"}, {"content", "go"}},
                                 {{"role", "assistant"}, {"content", {call}}},
                                 {{"role", "user"}, {"content", {answer}}}}}};
  EXPECT_FALSE(test::anthropic_tool_refusal(body, ""));  // GA: no beta header
  const auto refused_with = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json changed = body;
    change(changed);
    const auto refused = test::anthropic_tool_refusal(changed, "");
    return refused ? refused->message : std::string();
  };
  EXPECT_NE(refused_with([](auto& b) { b["tools"][0]["display_width_px"] = 540; }).find("Extra inputs"),
            std::string::npos);
  EXPECT_NE(refused_with([](auto& b) { b["tools"][0]["name"] = "computer"; }), "");
  EXPECT_NE(refused_with([](auto& b) { b["tools"][0]["configs"] = {{"teleport", {{"enabled", false}}}}; }), "");
  EXPECT_EQ(refused_with([](auto& b) { b["tools"][0]["configs"] = {{"zoom", {{"enabled", false}}}}; }), "");
  EXPECT_NE(refused_with([](auto& b) { b["messages"][2]["content"][0].erase("toolset_name"); }).find("toolset_name"),
            std::string::npos);
  // Which model takes which: the toolset alone on Opus 5.5, the beta tool alone on Opus 4.7.
  EXPECT_NE(refused_with([](auto& b) { b["model"] = "claude-opus-4-7"; }).find("does not support tool types"),
            std::string::npos);
  EXPECT_NE(
      refused_with([](auto& b) {
        b["tools"][0] = {
            {"type", "computer_20251124"}, {"name", "computer"}, {"display_width_px", 540}, {"display_height_px", 360}};
      }).find("'claude-opus-5-5' does not support tool types: computer_20251124"),
      std::string::npos);

  // vimgpt's own request, built as --mode computer-use builds it from the catalogue.
  const ModelSpec* spec = find_model("claude-opus-5-5");
  ASSERT_NE(spec, nullptr);
  ASSERT_TRUE(spec->computer_tool.has_value());
  EXPECT_TRUE(spec->computer_tool->toolset());
  detail::ChatRequest request;
  request.provider = Provider::Anthropic;
  request.model = "claude-opus-5-5";
  request.turns = {{"system", "sys"}, {"user", "go"}, {"assistant", ""}, {"user", "The action: clicked"}};
  request.turns[2].tool_uses = nlohmann::json::array({call});
  request.turns[3].tool_results = {"toolu_1"};
  detail::add_computer_tool(request, *spec->computer_tool, {540, 360});
  const auto http = detail::build_anthropic_request(request);
  EXPECT_FALSE(http.headers.get("anthropic-beta").has_value());
  const auto sent = nlohmann::json::parse(http.body);
  EXPECT_FALSE(test::anthropic_tool_refusal(sent, "")) << sent.dump();
  EXPECT_EQ(sent["messages"][2]["content"][0]["toolset_name"], "computer");
  EXPECT_EQ(sent["tools"][0]["configs"]["middle_click"]["enabled"], false);  // what vimgpt cannot do is withheld
  EXPECT_FALSE(sent["tools"][0]["configs"].contains("left_click"));
}

// Gemini's computer tool speaks Google's native API: its address from the OpenAI-compatible base, the key in
// x-goog-api-key, usage with thoughts counted apart, and a reply cut off, filtered or blocked told apart.
TEST(GeminiNative, TheWireIsGooglesAndItsRepliesAreToldApart) {
  detail::ChatRequest request;
  request.provider = Provider::Gemini;
  request.api = ModelApi::GenerateContent;
  request.base_url = std::string(kGeminiBaseUrl);
  request.api_key = "g-key";
  request.model = "gemini-3.8-flash";
  request.system = "sys";
  request.blocks = {"the task"};
  request.effort = "low";
  const auto http = detail::build_gemini_request(request);
  EXPECT_EQ(http.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:generateContent");
  EXPECT_EQ(http.headers.get("x-goog-api-key").value_or(""), "g-key");
  EXPECT_FALSE(http.headers.get("Authorization").has_value());
  const auto sent = Json::parse(http.body);
  EXPECT_EQ(sent["systemInstruction"]["parts"][0]["text"], "sys");
  EXPECT_EQ(sent["contents"][0]["parts"][0]["text"], "the task");
  EXPECT_EQ(sent["generationConfig"]["thinkingConfig"]["thinkingLevel"], "LOW");
  EXPECT_FALSE(test::gemini_native_refusal(sent, request.model, "g-key", "g-key")) << sent.dump();

  const auto read = [](std::string body) {
    http::HttpResponse response;
    response.status = 200;
    response.body = std::move(body);
    return detail::parse_gemini_response(response);
  };
  auto called = read(R"({"candidates": [{"finishReason": "STOP", "content": {"role": "model", "parts": [
      {"text": "Clicking.", "thought": true}, {"text": "The button."},
      {"functionCall": {"name": "click", "args": {"x": 1, "y": 2}}, "thoughtSignature": "sig"}]}}],
    "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 30, "thoughtsTokenCount": 400,
                      "cachedContentTokenCount": 1000}})");
  ASSERT_TRUE(called) << called.error().message;
  EXPECT_EQ(called->reasoning, "Clicking.");
  EXPECT_TRUE(called->text.starts_with("The button.")) << called->text;
  EXPECT_NE(called->text.find(R"("thoughtSignature":"sig")"), std::string::npos) << called->text;
  EXPECT_EQ(called->prompt_tokens, 1200);
  EXPECT_EQ(called->completion_tokens, 430);  // thoughts are billed as output
  EXPECT_EQ(called->reasoning_tokens, 400);
  EXPECT_EQ(called->cached_tokens, 1000);
  auto cut = read(R"({"candidates": [{"finishReason": "MAX_TOKENS"}], "usageMetadata": {"thoughtsTokenCount": 300}})");
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->finish_reason, "length");
  EXPECT_TRUE(cut->text.empty());
  auto filtered = read(R"({"candidates": [{"finishReason": "SAFETY"}]})");
  ASSERT_FALSE(filtered);
  EXPECT_EQ(filtered.error().kind, ErrorKind::Refused);
  auto blocked = read(R"({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})");
  ASSERT_FALSE(blocked);
  EXPECT_EQ(blocked.error().kind, ErrorKind::Refused);
  EXPECT_NE(blocked.error().message.find("PROHIBITED_CONTENT"), std::string::npos);
  EXPECT_FALSE(read("<html>"));
}

// The fake refuses what Google refuses of the loop: computer use on a model that does not take it, a call sent back
// without its thought signature, a call turn not answered call for call, a safety decision not acknowledged.
TEST(FakeContracts, GooglesComputerUseRulesAreEnforced) {
  const Json tools = Json::array({{{"computerUse", {{"environment", "ENVIRONMENT_BROWSER"}}}}});
  const Json call = {{"functionCall", {{"name", "click"}, {"args", {{"x", 1}, {"y", 1}}}}}, {"thoughtSignature", "s"}};
  const Json answer = {{"functionResponse", {{"name", "click"}, {"response", {{"url", "http://127.0.0.1/"}}}}}};
  Json body = {{"tools", tools},
               {"contents",
                {{{"role", "user"}, {"parts", {{{"text", "task"}}}}},
                 {{"role", "model"}, {"parts", {call}}},
                 {{"role", "user"}, {"parts", {answer}}}}}};
  EXPECT_FALSE(test::gemini_native_refusal(body, "gemini-3.8-flash", "k", "k")) << body.dump();
  EXPECT_TRUE(test::gemini_native_refusal(body, "gemini-3.8-flash", "wrong", "k"));
  EXPECT_TRUE(test::gemini_native_refusal(body, "gemini-3.5-flash-lite", "k", "k"));  // takes no computer use
  Json unsigned_call = body;
  unsigned_call["contents"][1]["parts"][0].erase("thoughtSignature");
  EXPECT_TRUE(test::gemini_native_refusal(unsigned_call, "gemini-3.8-flash", "k", "k"));
  Json unanswered = body;
  unanswered["contents"][2]["parts"] = Json::array({{{"text", "nothing"}}});
  EXPECT_TRUE(test::gemini_native_refusal(unanswered, "gemini-3.8-flash", "k", "k"));
  Json unsafe = body;
  unsafe["contents"][1]["parts"][0]["functionCall"]["args"]["safety_decision"] = {{"decision", "require_confirmation"},
                                                                                  {"explanation", "risky"}};
  EXPECT_TRUE(test::gemini_native_refusal(unsafe, "gemini-3.8-flash", "k", "k"));
  unsafe["contents"][2]["parts"][0]["functionResponse"]["response"]["safety_acknowledgement"] = "true";
  EXPECT_FALSE(test::gemini_native_refusal(unsafe, "gemini-3.8-flash", "k", "k")) << unsafe.dump();
}

}  // namespace
}  // namespace vimgpt::vision
