// JsonSchema against the official JSON-Schema-Test-Suite (Debian's json-schema-test-suite, installed by
// scripts/setup.sh) and the cases --output-schema meets: what docs/actions.md says of the drafts is what
// this test finds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/json_schema.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kSuite = "/usr/share/json-schema-test-suite/tests";

// A schema that refers to another document (a "$ref" not within this one): vimgpt refuses it, never fetches.
bool refers_elsewhere(const Json& node) {
  if (node.is_array()) return std::any_of(node.begin(), node.end(), refers_elsewhere);
  if (!node.is_object()) return false;
  if (const auto ref = node.find("$ref");
      ref != node.end() && ref->is_string() && !ref->get<std::string>().starts_with("#"))
    return true;
  return std::any_of(node.begin(), node.end(), refers_elsewhere);
}

class OfficialSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(OfficialSuite, EveryCaseWithinOneDocumentPasses) {
  const fs::path folder = kSuite / GetParam();
  if (!fs::is_directory(folder))
    GTEST_SKIP() << folder << " is missing: scripts/setup.sh installs it (json-schema-test-suite)";
  int passed = 0;
  int refused = 0;
  for (const auto& file : fs::directory_iterator(folder)) {
    if (file.path().extension() != ".json") continue;
    std::ifstream in(file.path());
    const Json groups = Json::parse(in);
    for (const auto& group : groups) {
      SCOPED_TRACE(file.path().filename().string() + ": " + group["description"].get<std::string>());
      // A draft 4 schema says so (vimgpt reads draft 7 otherwise), as the suite's metaschema tests do.
      Json document = group["schema"];
      if (GetParam() == "draft4" && document.is_object() && !document.contains("$schema"))
        document["$schema"] = "http://json-schema.org/draft-04/schema#";
      auto schema = JsonSchema::read(document);
      if (refers_elsewhere(group["schema"])) {
        ASSERT_FALSE(schema) << "a reference to another document must be refused";
        EXPECT_EQ(schema.error().kind, ErrorKind::InvalidArgument);
        refused += static_cast<int>(group["tests"].size());
        continue;
      }
      ASSERT_TRUE(schema) << schema.error().message;
      for (const auto& test : group["tests"]) {
        const bool valid = test["valid"].get<bool>();
        const auto problems = schema->problems(test["data"]);
        EXPECT_EQ(problems.empty(), valid) << test["description"] << (problems.empty() ? "" : ": " + problems[0]);
        if (problems.empty() == valid) ++passed;
      }
    }
  }
  EXPECT_GT(passed, 250);
  std::cout << GetParam() << ": " << passed << " cases pass, " << refused << " refused (they need another document)\n";
}

INSTANTIATE_TEST_SUITE_P(Drafts, OfficialSuite, ::testing::Values("draft4", "draft6", "draft7"));

TEST(JsonSchema, SaysWhereAndWhyAValueFails) {
  const auto schema = JsonSchema::read(Json::parse(R"({
    "type": "array", "minItems": 2,
    "items": {"type": "object", "required": ["name", "price"],
              "properties": {"name": {"type": "string"}, "price": {"type": "number", "minimum": 0}}}})"));
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_TRUE(schema->problems(Json::parse(R"([{"name": "a", "price": 1}, {"name": "b", "price": 0}])")).empty());
  const auto problems = schema->problems(Json::parse(R"([{"name": "a", "price": -1}, {"name": "b"}])"));
  ASSERT_FALSE(problems.empty());
  std::string all;
  for (const auto& problem : problems) all += problem + "\n";
  EXPECT_NE(all.find("/0/price"), std::string::npos) << all;
  EXPECT_NE(all.find("/1"), std::string::npos) << all;
  EXPECT_NE(all.find("price"), std::string::npos) << all;
  EXPECT_EQ(schema->problems(Json::array({{{"name", "a"}, {"price", 1}}})).size(), 1u) << "too few items";
}

TEST(JsonSchema, DefinitionsReferredToWithinTheSchema) {
  const auto schema = JsonSchema::read(Json::parse(R"({
    "$defs": {"row": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
    "type": "array", "items": {"$ref": "#/$defs/row"}})"));
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_TRUE(schema->problems(Json::parse(R"([{"n": 1}])")).empty());
  EXPECT_FALSE(schema->problems(Json::parse(R"([{"n": "one"}])")).empty());
}

TEST(JsonSchema, RefusesWhatItCannotCheckWithAReason) {
  const auto not_schema = JsonSchema::read(Json::array({1, 2}));
  ASSERT_FALSE(not_schema);
  EXPECT_NE(not_schema.error().message.find("object"), std::string::npos);

  const auto newer =
      JsonSchema::read(Json::parse(R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"})"));
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("drafts 4, 6 and 7"), std::string::npos) << newer.error().message;

  const auto remote = JsonSchema::read(Json::parse(R"({"$ref": "https://example.com/row.json"})"));
  ASSERT_FALSE(remote);
  EXPECT_NE(remote.error().message.find("never downloads"), std::string::npos) << remote.error().message;

  const auto bad_pattern = JsonSchema::read(Json::parse(R"({"type": "string", "pattern": "(unclosed"})"));
  ASSERT_FALSE(bad_pattern);
  EXPECT_NE(bad_pattern.error().message.find("(unclosed"), std::string::npos) << bad_pattern.error().message;
}

// libstdc++'s std::regex recurses per character: a long answer matched against a pattern must not take the
// process down (on the default stack `^(a|b)*$` overflows near 10,000 characters).
TEST(JsonSchema, LongStringsAgainstAPatternDoNotOverflowTheStack) {
  const auto schema = JsonSchema::read(Json::parse(R"({"type": "string", "pattern": "^(a|b)*$"})"));
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_TRUE(schema->problems(std::string(20'000, 'a')).empty());
  EXPECT_FALSE(schema->problems(std::string(20'000, 'a') + "c").empty());
  const auto too_long = schema->problems(std::string(40'000, 'a'));
  ASSERT_EQ(too_long.size(), 1u);
  EXPECT_NE(too_long[0].find("longer than"), std::string::npos) << too_long[0];
}

}  // namespace
}  // namespace vimgpt
