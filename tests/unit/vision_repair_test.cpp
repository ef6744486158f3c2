// Reply parsing and local repair, driven by the corpus of malformed-but-meaningful replies in
// tests/fixtures/replies/corpus.json (each with the action it must repair to).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "support/provider_contract.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

Json load_corpus() {
  std::ifstream file(std::string(VIMGPT_FIXTURES_DIR) + "/replies/corpus.json");
  std::ostringstream text;
  text << file.rdbuf();
  return Json::parse(text.str());
}

TEST(ParseReply, CorpusHasEnoughCases) {
  const Json corpus = load_corpus();
  EXPECT_GE(corpus["cases"].size(), 30U);
  EXPECT_GE(corpus["unrecoverable"].size(), 5U);
}

TEST(ParseReply, EveryCorpusReplyRepairsLocallyToItsAction) {
  const Json corpus = load_corpus();
  for (const auto& entry : corpus["cases"]) {
    const std::string name = entry["name"];
    const std::string reply = entry["reply"];
    auto parsed = parse_reply(reply);
    EXPECT_TRUE(parsed) << name << ": " << parsed.error().message;
    if (!parsed) continue;
    EXPECT_EQ(parsed->action, entry["action"])
        << name << "\n  reply:  " << reply << "\n  parsed: " << parsed->action.dump();
    EXPECT_EQ(parsed->repair, Repair::Local) << name;
    EXPECT_FALSE(parsed->fixes.empty()) << name;
  }
}

TEST(ParseReply, UnrecoverableRepliesAreParseErrorsCarryingTheText) {
  const Json corpus = load_corpus();
  for (const auto& entry : corpus["unrecoverable"]) {
    const std::string reply = entry["reply"];
    auto parsed = parse_reply(reply);
    ASSERT_FALSE(parsed) << entry["name"] << " parsed as " << parsed->action.dump();
    EXPECT_EQ(parsed.error().kind, ErrorKind::Parse);
    EXPECT_NE(parsed.error().message.find("unparseable reply"), std::string::npos);
    EXPECT_NE(parsed.error().message.find(reply), std::string::npos) << entry["name"];
  }
}

TEST(ParseReply, InvalidUtf8InARepairedReplyBecomesReplacementCharacters) {
  // Found by fuzz/reply_fuzz: the lenient parser copied the bytes, and the first dump() of the action threw.
  auto parsed = parse_reply("\"click\": \"\xb8\xbd\"");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  std::string dumped;
  EXPECT_NO_THROW(dumped = parsed->action.dump());
  EXPECT_EQ(parsed->action["click"], "\xef\xbf\xbd\xef\xbf\xbd");  // two U+FFFD
}

TEST(ParseReply, ValidJsonIsTakenAsIsWithoutRepair) {
  auto parsed = parse_reply(R"({"click": "AB", "type": "caf\u00e9"})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->repair, Repair::None);
  EXPECT_TRUE(parsed->fixes.empty());
  EXPECT_EQ(parsed->action, (Json{{"click", "AB"}, {"type", "caf\xC3\xA9"}}));
}

TEST(ParseReply, UnknownKeysAreKeptForReporting) {
  auto parsed = parse_reply(R"({"click": "A", "reason": "it is the search box"})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->action["reason"], "it is the search box");
  EXPECT_EQ(unknown_keys(parsed->action), std::vector<std::string>{"reason"});
}

TEST(ParseReply, PrefersTheObjectThatIsAnAction) {
  auto parsed = parse_reply(R"(Page state: {"title": "Home"}. Action: {"navigate": "https://a.example"})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->action, (Json{{"navigate", "https://a.example"}}));
}

TEST(ParseReply, DoesNotMergeObjectsThatDisagree) {
  auto parsed = parse_reply("{\"click\": \"A\"}\n{\"click\": \"B\"}");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->action, (Json{{"click", "A"}}));
}

TEST(ParseReply, ANumberThatStartsAWordIsText) {
  auto parsed = parse_reply("{type: 2 tickets for Friday}");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->action, (Json{{"type", "2 tickets for Friday"}}));
}

TEST(ActionVocabulary, UnknownKeysListsOnlyKeysOutsideTheVocabulary) {
  const Json action = {{"click", "A"}, {"type", "x"}, {"thought", "..."}, {"scroll", "down"}, {"foo", 1}};
  EXPECT_EQ(unknown_keys(action), (std::vector<std::string>{"foo", "thought"}));
  EXPECT_TRUE(unknown_keys(Json{{"done", nullptr}}).empty());
  EXPECT_TRUE(unknown_keys(Json{{"upload", "A"},
                                {"file", "cv.pdf"},
                                {"tab", 2},
                                {"close_tab", true},
                                {"page", 3},
                                {"ask", "Which date?"},
                                {"handoff", "Please log in"},
                                {"type", "x"},
                                {"enter", false},
                                {"dialog", "accept"},
                                {"dialog_text", "x"}})
                  .empty());
  EXPECT_EQ(action_keys().size(), 29U);
}

// A strict reply as earlier versions' flat schema had OpenAI send it: every key, the unused ones null.
Json strict_reply(Json chosen) {
  Json reply = Json::object();
  for (const auto& key : action_keys()) reply[key] = key == "done" ? Json(false) : Json();
  reply.update(chosen);
  return reply;
}

TEST(ActionVocabulary, TheFlatFormOfEarlierRecordingsKeepsWhatWasChosenAndTellsDoneFromNotDone) {
  EXPECT_EQ(structured_action(strict_reply({{"click", "A"}})), (Json{{"click", "A"}}));
  EXPECT_EQ(structured_action(strict_reply({{"done", true}})), (Json{{"done", true}}));
  EXPECT_EQ(structured_action(strict_reply({{"done", "18 degrees"}})), (Json{{"done", "18 degrees"}}));
  EXPECT_EQ(structured_action(strict_reply(Json::object())), Json::object());  // not done, nothing chosen: no action
  // A server that fills unused keys with null even for "done": null beside a choice is not a choice, and
  // {"done": null} alone (the original's completion reply) is done.
  EXPECT_EQ(structured_action({{"click", "A"}, {"type", "x"}, {"done", nullptr}, {"navigate", nullptr}}),
            (Json{{"click", "A"}, {"type", "x"}}));
  EXPECT_EQ(structured_action({{"done", nullptr}, {"navigate", nullptr}, {"click", nullptr}}),
            (Json{{"done", nullptr}}));
  EXPECT_EQ(structured_action({{"done", nullptr}}), (Json{{"done", nullptr}}));
}

// Keywords one of the providers' structured modes refuses: OpenAI strict mode (allOf, not, if/then/else,
// minLength/maxLength) or Anthropic's output_config.format (numeric bounds, maxItems, minItems over 1).
void expect_portable(const Json& schema, const std::string& where) {
  for (const char* keyword :
       {"minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "allOf", "not", "if", "multipleOf"}) {
    EXPECT_FALSE(schema.contains(keyword)) << where << " has " << keyword;
  }
  if (schema.value("type", Json()) == "object") {
    EXPECT_EQ(schema["additionalProperties"], false) << where;
    ASSERT_TRUE(schema["required"].is_array()) << where;
    EXPECT_EQ(schema["required"].size(), schema["properties"].size()) << where << ": every key required";
  }
  const Json properties = schema.value("properties", Json::object());
  for (const auto& [key, value] : properties.items()) expect_portable(value, where + "." + key);
  const Json options = schema.value("anyOf", Json::array());
  for (const auto& option : options) expect_portable(option, where + "|");
  if (schema.contains("items")) expect_portable(schema["items"], where + "[]");
}

TEST(ActionVocabulary, TheSchemaIsOneSmallObjectPerActionUnderTheRoot) {
  const Json& schema = action_schema();
  expect_portable(schema, "root");
  EXPECT_EQ(schema["type"], "object");  // OpenAI: the root is an object, never anyOf
  EXPECT_EQ(schema["required"], Json::array({"action"}));
  const Json& shapes = schema["properties"]["action"]["anyOf"];
  ASSERT_TRUE(shapes.is_array());
  std::set<std::string> covered;
  for (const auto& shape : shapes) {
    for (const auto& [key, value] : shape["properties"].items()) covered.insert(key);
  }
  EXPECT_EQ(covered, std::set<std::string>(action_keys().begin(), action_keys().end()));
  // Every reply the original's documentation shows, and our extensions, fit it once wrapped; a reply with two
  // actions' keys, or a key of none, does not.
  for (const Json& action :
       {Json{{"click", "A"}}, Json{{"click", "SD"}, {"type", "flights"}}, Json{{"type", "hello"}},
        Json{{"navigate", "https://example.com"}}, Json{{"done", true}}, Json{{"done", "18 degrees"}},
        Json{{"scroll", "down"}}, Json{{"click_at", {512, 300}}}, Json{{"select", "AB"}, {"option", "Zsa Zsa"}},
        Json{{"upload", "F"}, {"file", "cv.pdf"}}, Json{{"click", "A"}, {"type", "x"}, {"enter", false}},
        Json{{"tab", 2}}, Json{{"wait", 2}}, Json{{"key", "Escape"}}, Json{{"ask", "When?"}}}) {
    EXPECT_TRUE(test::fits_schema({{"action", action}}, schema)) << action.dump();
    EXPECT_EQ(structured_action({{"action", action}}), action);
  }
  EXPECT_FALSE(test::fits_schema({{"action", {{"click", "A"}, {"navigate", "x"}}}}, schema));
  EXPECT_FALSE(test::fits_schema({{"action", {{"swipe", "A"}}}}, schema));
  // A list holds single actions, never a list.
  EXPECT_TRUE(
      test::fits_schema({{"action", {{"actions", {{{"click", "A"}}, {{"drag", "B"}, {"to", {10, 20}}}}}}}}, schema));
  EXPECT_FALSE(test::fits_schema({{"action", {{"actions", {{{"actions", Json::array()}}}}}}}, schema));
  EXPECT_FALSE(test::fits_schema({{"click", "A"}}, schema));
}

}  // namespace
}  // namespace vimgpt::vision
