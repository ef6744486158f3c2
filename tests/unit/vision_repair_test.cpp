// Reply parsing and local repair, driven by the corpus of malformed-but-meaningful replies in
// tests/fixtures/replies/corpus.json (each with the action it must repair to).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
                                {"ask", "Which date?"},
                                {"type", "x"},
                                {"enter", false}})
                  .empty());
  EXPECT_EQ(action_keys().size(), 17U);
}

// A strict reply as OpenAI sends it: every key, the unused ones null.
Json strict_reply(Json chosen) {
  Json reply = Json::object();
  for (const auto& key : action_keys()) reply[key] = key == "done" ? Json(false) : Json();
  reply.update(chosen);
  return reply;
}

TEST(ActionVocabulary, AStructuredReplyKeepsWhatWasChosenAndTellsDoneFromNotDone) {
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

TEST(ActionVocabulary, StrictSchemaRequiresEveryKeyAndForbidsOthers) {
  const Json& schema = action_schema(SchemaStyle::Strict);
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["additionalProperties"], false);
  ASSERT_EQ(schema["required"].size(), action_keys().size());
  for (const auto& key : action_keys()) {
    ASSERT_TRUE(schema["properties"].contains(key)) << key;
    const Json& types = schema["properties"][key]["type"];
    // Unused keys are null; "done" is false until the run is done, so that a null "done" cannot stand for
    // both "not done" and "done with no answer".
    const bool nullable = std::find(types.begin(), types.end(), "null") != types.end();
    EXPECT_EQ(nullable, key != "done") << key;
  }
  EXPECT_EQ(schema["properties"]["done"]["type"], (Json{"string", "boolean"}));
  const Json& relaxed = action_schema(SchemaStyle::Relaxed);
  EXPECT_FALSE(relaxed.contains("required"));
  EXPECT_EQ(relaxed["properties"].size(), action_keys().size());
}

}  // namespace
}  // namespace vimgpt::vision
