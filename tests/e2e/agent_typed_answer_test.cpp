// Typed answers (--output-schema, a batch task's output_schema, MCP browse's output_schema) through the real
// binary and Chromium on a loopback table page: the schema goes to the provider inside the done branch of the
// structured output (the fake refuses what OpenAI's strict mode refuses, and holds replies to what it sent), the
// answer is checked locally, one that does not fit goes back to the model with the validator's words, and the
// answer comes out as JSON in stdout, run.json, the --json end event and batch results.
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
using test::FakeModelServer;
using test::run_vimgpt;
using test::ScriptedReply;

// The rows of tests/fixtures/site/hands/stock.html.
const json kRows = json::parse(R"([{"product": "Kettle", "price": 29.9, "in_stock": true},
                                   {"product": "Toaster", "price": 45.0, "in_stock": false},
                                   {"product": "Blender", "price": 89.5, "in_stock": true}])");

// Every row, each with its three columns: the minimum of 3 rows and of price 0 are bounds strict mode does not take
// (they travel in the description and are checked here).
const json kSchema = json::parse(R"({
  "type": "array", "minItems": 3,
  "items": {"type": "object", "additionalProperties": false, "required": ["product", "price", "in_stock"],
            "properties": {"product": {"type": "string"}, "price": {"type": "number", "minimum": 0},
                           "in_stock": {"type": "boolean"}}}})");

class TypedAnswer : public ::testing::Test {
 protected:
  void SetUp() override {
    site_.mount("/fx", VIMGPT_FIXTURES_DIR "/site");
    scratch_ = fs::temp_directory_path() / ("vimgpt-typed-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
    write(scratch_ / "schema.json", kSchema.dump(2));
  }
  void TearDown() override { fs::remove_all(scratch_); }

  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

  // Replies in turn; the last repeats.
  void script(std::vector<std::string> replies) {
    model_->set_responder([this, replies = std::move(replies)](const test::ReceivedRequest&) {
      const std::size_t step = std::min(answered_++, replies.size() - 1);
      return ScriptedReply::text(replies[step]);
    });
  }

  CliRun run(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"List every product in the table with its price and whether it is in stock",
                                     "--base-url",
                                     model_->url(),
                                     "--provider",
                                     provider_,
                                     "--api-key",
                                     "test-key",
                                     "--observe",
                                     "hybrid",
                                     "--start-url",
                                     site_.url("/fx/hands/stock.html"),
                                     "--record",
                                     (scratch_ / "record").string(),
                                     "--max-retries",
                                     "0",
                                     "--max-steps",
                                     "5",
                                     "--output-schema",
                                     (scratch_ / "schema.json").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_vimgpt(args);
  }

  [[nodiscard]] json run_json() const { return json::parse(std::ifstream(scratch_ / "record" / "run.json")); }

  static std::string reply_with(const json& rows) { return json{{"done", rows}}.dump(); }
  static json first_rows(std::size_t count) {
    json rows = json::array();
    for (std::size_t i = 0; i < count; ++i) rows.push_back(kRows[i]);
    return rows;
  }

  // OpenAI's own API (strict structured output) unless a test says otherwise.
  void serve_model(test::Requirement structured, test::Service service) {
    provider_ = service == test::Service::OpenAI ? "openai" : "compatible";
    model_ = std::make_unique<FakeModelServer>(test::Expectations{"test-key", std::string(vision::kDefaultModel),
                                                                  test::default_frame_width(), 1, structured, service});
  }

  test::SiteServer site_;
  std::unique_ptr<FakeModelServer> model_ = std::make_unique<FakeModelServer>(
      test::Expectations{"test-key", std::string(vision::kDefaultModel), test::default_frame_width(), 1,
                         test::Requirement::Required, test::Service::OpenAI});
  std::string provider_ = "openai";
  std::size_t answered_ = 0;
  fs::path scratch_;
};

// The done branch the request carried: the answer's schema as strict mode takes it.
json done_schema(const json& schema) {
  for (const auto& shape : schema["properties"]["action"]["anyOf"]) {
    if (shape["properties"].size() == 1 && shape["properties"].contains("done")) return shape["properties"]["done"];
  }
  return nullptr;
}

TEST_F(TypedAnswer, ATableIsReadIntoObjectsAndAnAnswerMissingARowIsSentBackAndCorrected) {
  script({reply_with(first_rows(2)), reply_with(kRows)});
  const CliRun result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(model_->problems(), std::vector<std::string>{});
  const auto requests = model_->requests();
  ASSERT_EQ(requests.size(), 2U);

  // The schema went with the structured output, its bounds in words, and with the prompt.
  const json carried = done_schema(requests[0].schema);
  EXPECT_EQ(carried["type"], "array");
  EXPECT_EQ(carried["items"]["properties"]["price"]["type"], "number");
  EXPECT_NE(carried.value("description", "").find("minItems: 3"), std::string::npos) << carried.dump();
  EXPECT_NE(carried["items"]["properties"]["price"].value("description", "").find("minimum: 0"), std::string::npos);
  EXPECT_NE(requests[0].text.find("must be JSON that fits this JSON Schema"), std::string::npos);
  EXPECT_NE(requests[0].text.find("\"in_stock\""), std::string::npos);

  // The second request told the model what the validator said.
  EXPECT_NE(requests[1].text.find("does not fit the output schema"), std::string::npos) << requests[1].text;
  EXPECT_NE(requests[1].text.find("no fewer than 3"), std::string::npos) << requests[1].text;
  EXPECT_NE(requests[1].text.find("1 of 2 tries"), std::string::npos) << requests[1].text;

  // The answer is JSON everywhere: stdout, run.json.
  EXPECT_EQ(json::parse(result.out), kRows) << result.out;
  const json ran = run_json();
  EXPECT_EQ(ran["outcome"], "done");
  EXPECT_EQ(ran["answer"], kRows);
  const auto steps = test::read_steps(scratch_ / "record");
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_FALSE(steps[0]["ok"].get<bool>());
  EXPECT_TRUE(steps[1]["ok"].get<bool>());
}

TEST_F(TypedAnswer, AnAnswerThatNeverFitsEndsTheRunAnswerInvalidWithTheAnswerKept) {
  script({reply_with(first_rows(1))});
  const CliRun result = run({"--json"});
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_EQ(model_->request_count(), 3U);  // the answer, then two corrections asked for
  const json ran = run_json();
  EXPECT_EQ(ran["outcome"], "answer_invalid");
  EXPECT_EQ(ran["answer"], first_rows(1));
  std::string trimmed = result.out.substr(0, result.out.find_last_not_of('\n') + 1);
  const json end = json::parse(trimmed.substr(trimmed.rfind('\n') + 1));
  EXPECT_EQ(end["event"], "end");
  EXPECT_EQ(end["outcome"], "answer_invalid");
  EXPECT_EQ(end["answer"], first_rows(1));
  EXPECT_NE(end["message"].get<std::string>().find("no fewer than 3"), std::string::npos) << end.dump();
}

// A server without structured output: the model writes the JSON as the answer's text, and it is read as JSON (in a
// replay of the run too).
TEST_F(TypedAnswer, AnAnswerWrittenAsTextHoldingJsonIsReadAsThatJson) {
  serve_model(test::Requirement::Forbidden, test::Service::Compatible);
  script({json{{"done", kRows.dump()}}.dump()});
  const CliRun result = run({"--structured", "off"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(model_->problems(), std::vector<std::string>{});
  EXPECT_EQ(run_json()["answer"], kRows);
  EXPECT_NE(model_->requests()[0].text.find("must be JSON that fits this JSON Schema"), std::string::npos);

  // The record keeps the schema: a replay with no model holds the recorded answer to it, and reads it as JSON too.
  EXPECT_EQ(run_json()["output_schema"], kSchema);
  const CliRun replayed =
      run_vimgpt({"replay", (scratch_ / "record").string(), "--no-heal", "--record", (scratch_ / "again").string()});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_EQ(json::parse(replayed.out), kRows) << replayed.out;
  EXPECT_EQ(model_->request_count(), 1U);
}

// In a list, done's value is the untyped answer (strict mode's depth would not fit a schema there): the model
// writes the JSON as text, and a list whose answer does not fit goes back like a lone done.
TEST_F(TypedAnswer, AListThatEndsWithDoneHasItsAnswerCheckedToo) {
  script({json{{"actions", json::array({{{"key", "Escape"}}, {{"done", first_rows(2).dump()}}})}}.dump(),
          json{{"actions", json::array({{{"key", "Home"}}, {{"done", kRows.dump()}}})}}.dump()});
  const CliRun result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(model_->problems(), std::vector<std::string>{});
  ASSERT_EQ(model_->request_count(), 2U);
  const std::string told = model_->requests()[1].text;
  EXPECT_NE(told.find("2 actions:"), std::string::npos) << told;  // what the list did, then why it was sent back
  EXPECT_NE(told.find("does not fit the output schema"), std::string::npos) << told;
  EXPECT_EQ(run_json()["answer"], kRows);
}

TEST_F(TypedAnswer, ASchemaThatCannotBeCheckedIsAUsageErrorBeforeAnyBrowserStarts) {
  write(scratch_ / "schema.json", R"({"type": "array", "items": {"$ref": "https://example.com/row.json"}})");
  CliRun result = run();
  EXPECT_EQ(result.exit_code, 64) << result.err;
  EXPECT_NE(result.err.find("--output-schema"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("never downloads"), std::string::npos) << result.err;
  write(scratch_ / "schema.json", "{not json");
  result = run();
  EXPECT_EQ(result.exit_code, 64) << result.err;
  EXPECT_NE(result.err.find("is not JSON"), std::string::npos) << result.err;
  EXPECT_EQ(model_->request_count(), 0U);
  EXPECT_FALSE(result.left_behind);
}

// A batch task names its own schema; its result line holds the answer as JSON.
TEST_F(TypedAnswer, ABatchTaskWithItsOwnSchemaGetsItsAnswerAsJsonInTheResults) {
  script({reply_with(first_rows(2)), reply_with(kRows)});
  write(scratch_ / "tasks.jsonl", json{{"id", "stock"},
                                       {"objective", "List every product in the table"},
                                       {"start_url", site_.url("/fx/hands/stock.html")},
                                       {"output_schema", kSchema}}
                                          .dump() +
                                      "\n");
  const CliRun result =
      run_vimgpt({"batch", (scratch_ / "tasks.jsonl").string(), "--out", (scratch_ / "results.jsonl").string(),
                  "--base-url", model_->url(), "--provider", "openai", "--api-key", "test-key", "--max-retries", "0"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream in(scratch_ / "results.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const json row = json::parse(line);
  EXPECT_EQ(row["status"], "done") << row.dump();
  EXPECT_EQ(row["answer"], kRows);
  EXPECT_EQ(model_->request_count(), 2U);
  EXPECT_NE(model_->requests()[1].text.find("no fewer than 3"), std::string::npos);

  write(scratch_ / "bad.jsonl", R"({"id": "x", "objective": "o", "output_schema": {"type": 5}})"
                                "\n");
  const CliRun bad =
      run_vimgpt({"batch", (scratch_ / "bad.jsonl").string(), "--out", (scratch_ / "bad-results.jsonl").string(),
                  "--base-url", model_->url(), "--api-key", "test-key"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("task line 1: output_schema"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace vimgpt
