// --verify's request and its reply: what the check is shown, and each form of verdict read (or refused).
#include <gtest/gtest.h>

#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

TEST(AnswerCheck, ThePromptHoldsTheTaskTheStepsWithTheirOutcomesAndTheAnswer) {
  AnswerCheck check;
  check.objective = "find the price of the red lamp";
  check.answer = Json{{"price", 42}};
  check.url = "http://127.0.0.1/lamp";
  check.steps = {{Json{{"click", "A"}}, "clicked link 'Lamps'", "http://127.0.0.1/", "", "{}"},
                 {Json{{"type", "lamp"}}, "", "http://127.0.0.1/lamps", "no field is focused", "{}"}};
  const Prompt prompt = check_prompt(check);
  EXPECT_NE(prompt.system.find("{\"pass\": true or false"), std::string::npos);
  const std::string user = prompt.user();
  EXPECT_NE(user.find("Task: find the price of the red lamp"), std::string::npos) << user;
  EXPECT_NE(user.find("1. {\"click\":\"A\"} on http://127.0.0.1/ -> clicked link 'Lamps'"), std::string::npos) << user;
  EXPECT_NE(user.find("2. {\"type\":\"lamp\"} on http://127.0.0.1/lamps -> failed: no field is focused"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("The page it answered on: http://127.0.0.1/lamp"), std::string::npos) << user;
  EXPECT_NE(user.find("Its answer: {\"price\":42}"), std::string::npos) << user;
  // The agent's own replies (its reasoning) are not shown: the check judges the evidence.
  check.steps[0].reply = "I am sure the lamp costs 24";
  EXPECT_EQ(check_prompt(check).user().find("I am sure"), std::string::npos);
}

TEST(AnswerCheck, VerdictsAreReadWithTheirReasonAndAnythingElseIsAParseError) {
  auto passed = read_check(R"({"pass": true, "reason": "the page shows 42 EUR"})");
  ASSERT_TRUE(passed) << passed.error().message;
  EXPECT_TRUE(passed->passed);
  EXPECT_EQ(passed->reason, "the page shows 42 EUR");
  // Words around the object (a model that explains itself), and a verdict without a reason.
  auto failed = read_check("Looking at it:\n{\"pass\": false}\nThat is all.");
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_FALSE(failed->passed);
  EXPECT_EQ(failed->reason, "the check gave no reason");
  EXPECT_FALSE(read_check("yes, it is right"));
  EXPECT_FALSE(read_check(R"({"pass": "yes"})"));
  EXPECT_EQ(read_check("{}").error().kind, ErrorKind::Parse);
}

}  // namespace
}  // namespace vimgpt::vision
