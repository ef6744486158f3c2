// What a live view page sends, read at the door (src/live/input.h): each field of its type, or an error in words the
// page shows; never a throw, which would end the run the person is watching.
#include <gtest/gtest.h>

#include "live/input.h"

namespace vimgpt::live {
namespace {

TEST(LiveInput, EachRequestIsReadWithItsFields) {
  auto pause = read_page_request(Json{{"do", "pause"}, {"run", 3}});
  ASSERT_TRUE(pause) << pause.error().message;
  EXPECT_EQ(pause->what, "pause");
  EXPECT_EQ(pause->run, 3);
  EXPECT_FALSE(pause->input);

  auto resume = read_page_request(Json{{"do", "resume"}, {"run", 1}, {"answer", "42 Elm Street"}});
  ASSERT_TRUE(resume) << resume.error().message;
  EXPECT_EQ(resume->answer, "42 Elm Street");

  auto click = read_page_request(
      Json{{"do", "input"},
           {"run", 1},
           {"input", {{"kind", "click"}, {"x", 0.25}, {"y", 0.5}, {"button", "right"}, {"clicks", 2}}}});
  ASSERT_TRUE(click) << click.error().message;
  ASSERT_TRUE(click->input);
  EXPECT_EQ(click->input->kind, PersonInput::Kind::Click);
  EXPECT_DOUBLE_EQ(click->input->x, 0.25);
  EXPECT_DOUBLE_EQ(click->input->y, 0.5);
  EXPECT_EQ(click->input->button, browser::MouseButton::Right);
  EXPECT_EQ(click->input->clicks, 2);

  auto key = read_page_request(Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "key"}, {"keys", "Control+A"}}}});
  ASSERT_TRUE(key) << key.error().message;
  EXPECT_EQ(key->input->keys, "Control+A");
  auto text = read_page_request(Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "text"}, {"text", "é"}}}});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->input->text, "é");
}

// Out of range is brought in range: a point stays inside the image, clicks 1 to 3, a wheel turn at most kMaxWheel.
TEST(LiveInput, NumbersOutOfRangeAreBroughtInRange) {
  auto far =
      read_page_request(Json{{"do", "input"},
                             {"run", 1},
                             {"input", {{"kind", "wheel"}, {"x", -3}, {"y", 7.5}, {"dx", 1e300}, {"dy", -1e300}}}});
  ASSERT_TRUE(far) << far.error().message;
  EXPECT_EQ(far->input->x, 0.0);
  EXPECT_EQ(far->input->y, 1.0);
  EXPECT_EQ(far->input->dx, kMaxWheel);
  EXPECT_EQ(far->input->dy, -kMaxWheel);
  auto many = read_page_request(Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"clicks", 900}}}});
  ASSERT_TRUE(many) << many.error().message;
  EXPECT_EQ(many->input->clicks, 3);
}

// A field of another type (which nlohmann's value() would throw on) is an error that names the field and its form.
TEST(LiveInput, AFieldOfAnotherTypeIsAnErrorNamingIt) {
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json::array({1, 2}), "a message is a JSON object"},
      {Json{{"do", 7}, {"run", 1}}, "\"do\" takes"},
      {Json{{"do", "pause"}, {"run", "1"}}, "\"run\" takes the run's number"},
      {Json{{"do", "pause"}, {"run", 1.5}}, "\"run\" takes the run's number"},
      {Json{{"do", "pause"}, {"run", 1e12}}, "\"run\" takes the run's number"},
      {Json{{"do", "pause"}, {"run", 9999999999}}, "\"run\" takes the run's number"},
      {Json{{"do", "resume"}, {"run", 1}, {"answer", {{"a", 1}}}}, "\"answer\" takes text"},
      {Json{{"do", "input"}, {"run", 1}}, "input needs an object"},
      {Json{{"do", "input"}, {"run", 1}, {"input", "click"}}, "input needs an object"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "tap"}}}}, "unknown input \"tap\""},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", 1}}}}, "\"kind\" takes click, wheel, text or key"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"x", "10"}}}}, "\"x\" takes a fraction"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"clicks", 2.5}}}},
       "\"clicks\" takes 1, 2 or 3"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "click"}, {"button", true}}}}, "\"button\" takes"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "wheel"}, {"dy", "down"}}}}, "\"dy\" takes a number"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "text"}, {"text", 5}}}}, "\"text\" takes text"},
      {Json{{"do", "input"}, {"run", 1}, {"input", {{"kind", "key"}, {"keys", Json::array()}}}}, "\"keys\" takes"},
  };
  for (const auto& [message, expected] : cases) {
    const auto read = read_page_request(message);
    ASSERT_FALSE(read) << message.dump();
    EXPECT_EQ(read.error().kind, ErrorKind::InvalidArgument) << message.dump();
    EXPECT_NE(read.error().message.find(expected), std::string::npos) << message.dump() << ": " << read.error().message;
  }
}

}  // namespace
}  // namespace vimgpt::live
