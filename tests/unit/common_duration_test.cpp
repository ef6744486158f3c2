// Durations on the command line: the units people write, each flag's own unit for a plain number, and errors that
// say what to write instead.
#include "common/duration.h"

#include <gtest/gtest.h>

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

std::chrono::milliseconds seconds_flag(std::string_view text) {
  auto parsed = parse_duration(text, PlainUnit::Seconds);
  EXPECT_TRUE(parsed) << text << ": " << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : -1ms;
}

TEST(Duration, TakesTheUnitsPeopleWrite) {
  EXPECT_EQ(seconds_flag("500ms"), 500ms);
  EXPECT_EQ(seconds_flag("3s"), 3s);
  EXPECT_EQ(seconds_flag("2m"), 2min);
  EXPECT_EQ(seconds_flag("2min"), 2min);
  EXPECT_EQ(seconds_flag("1h"), 1h);
  EXPECT_EQ(seconds_flag("1m30s"), 90s);
  EXPECT_EQ(seconds_flag("1h2m3s4ms"), 1h + 2min + 3s + 4ms);
  EXPECT_EQ(seconds_flag("1.5s"), 1500ms);
  EXPECT_EQ(seconds_flag("0.25m"), 15s);
  EXPECT_EQ(seconds_flag(" 3S "), 3s);
  EXPECT_EQ(seconds_flag("0"), 0ms);
}

TEST(Duration, APlainNumberKeepsTheFlagsOwnUnit) {
  EXPECT_EQ(seconds_flag("3"), 3s);  // --claim-idle 3, --timeout 60: seconds, as they always were
  EXPECT_EQ(seconds_flag("2.5"), 2500ms);
  auto settle = parse_duration("500", PlainUnit::Milliseconds);  // --settle-ms 500: milliseconds
  ASSERT_TRUE(settle);
  EXPECT_EQ(*settle, 500ms);
  auto settle_seconds = parse_duration("2s", PlainUnit::Milliseconds);  // a unit wins over the flag's name
  ASSERT_TRUE(settle_seconds);
  EXPECT_EQ(*settle_seconds, 2s);
}

TEST(Duration, WhatIsNotADurationSaysWhatToWrite) {
  for (const char* bad : {"", "  ", "abc", "3x", "3 s 4", "-3s", "-1", "s", "1m30", "3ss", "1..5s", "3s-", "1e3"}) {
    auto parsed = parse_duration(bad, PlainUnit::Seconds);
    ASSERT_FALSE(parsed) << "'" << bad << "' was taken as " << parsed->count() << " ms";
    EXPECT_EQ(parsed.error().kind, ErrorKind::InvalidArgument);
    EXPECT_NE(parsed.error().message.find("such as 500ms, 3s, 2m"), std::string::npos) << parsed.error().message;
    EXPECT_NE(parsed.error().message.find("a plain number is seconds"), std::string::npos) << parsed.error().message;
  }
  auto plain_ms = parse_duration("soon", PlainUnit::Milliseconds);
  ASSERT_FALSE(plain_ms);
  EXPECT_NE(plain_ms.error().message.find("a plain number is milliseconds"), std::string::npos);
  auto huge = parse_duration("99999999h", PlainUnit::Seconds);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("up to a year"), std::string::npos) << huge.error().message;
}

TEST(Duration, FormatsWhatItParses) {
  EXPECT_EQ(format_duration(0ms), "0s");
  EXPECT_EQ(format_duration(500ms), "500ms");
  EXPECT_EQ(format_duration(3s), "3s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(1h + 1ms), "1h1ms");
  for (std::chrono::milliseconds duration : {1ms, 999ms, 61000ms, 10020000ms}) {
    auto again = parse_duration(format_duration(duration), PlainUnit::Seconds);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, duration);
  }
}

}  // namespace
}  // namespace vimgpt
