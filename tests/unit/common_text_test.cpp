// The text helpers that read the flags' small numbers by hand (common/text.h).
#include <gtest/gtest.h>

#include "common/text.h"

namespace vimgpt {
namespace {

TEST(Text, DigitsAreReadUpToTheirLimitAndNothingElseIs) {
  EXPECT_EQ(parse_digits("0", 5), 0);
  EXPECT_EQ(parse_digits("65535", 5), 65535);
  EXPECT_EQ(parse_digits("00080", 5), 80);
  EXPECT_EQ(parse_digits("999999999", 12), 999999999);  // at most 9 digits, whatever is asked: never an overflow
  for (const std::string_view bad : {"", "123456", "-1", "+1", " 1", "1 ", "1.0", "0x10", "١"}) {
    EXPECT_FALSE(parse_digits(bad, 5)) << bad;
  }
  EXPECT_FALSE(parse_digits("1234567890", 12));
}

TEST(Text, PlainDecimalsAreDigitsWithASignAndAFractionAtMost) {
  for (const std::string_view good : {"0", "-12", "3.25", "-0.5", "100000000000000000000000"}) {
    EXPECT_TRUE(is_plain_decimal(good)) << good;
  }
  for (const std::string_view bad : {"", "-", ".5", "5.", "1e3", "+1", "1.2.3", " 1", "--1", "nan", "1,5"}) {
    EXPECT_FALSE(is_plain_decimal(bad)) << bad;
  }
}

}  // namespace
}  // namespace vimgpt
