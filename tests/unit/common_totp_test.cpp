// One-time codes: RFC 6238's own test vectors (Appendix B, HMAC-SHA-1), the key as authenticator apps show it, and
// keys that cannot be one refused with what to do.
#include "common/totp.h"

#include <gtest/gtest.h>

namespace vimgpt {
namespace {

constexpr std::string_view kRfcKey = "12345678901234567890";  // RFC 6238's SHA-1 seed, as ASCII

TEST(Totp, GivesTheRfcsCodesAtTheRfcsTimes) {
  const std::pair<std::int64_t, std::string_view> vectors[] = {
      {59, "94287082"},         {1111111109, "07081804"}, {1111111111, "14050471"},
      {1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"},
  };
  for (const auto& [time, code] : vectors) EXPECT_EQ(totp_code(kRfcKey, time, 8), code) << time;
  // Six digits, as the apps show: the last six of the RFC's eight (RFC 4226's HOTP value for counter 1).
  EXPECT_EQ(totp_code(kRfcKey, 59), "287082");
  // One code per 30-second step.
  EXPECT_EQ(totp_code(kRfcKey, 30), totp_code(kRfcKey, 59));
  EXPECT_NE(totp_code(kRfcKey, 59), totp_code(kRfcKey, 60));
}

TEST(Totp, ReadsTheKeyAsSitesShowIt) {
  // The RFC key in base32, in groups and lower case as sites print it beside the QR code, padding or not.
  auto key = totp_key("totp:gezd gnbv-gy3t qojq GEZD GNBV GY3T QOJQ");
  ASSERT_TRUE(key) << key.error().message;
  EXPECT_EQ(*key, kRfcKey);
  auto padded = totp_key("totp:MFRGG===");
  ASSERT_TRUE(padded) << padded.error().message;
  EXPECT_EQ(*padded, "abc");
  EXPECT_TRUE(is_totp("totp:MFRGG"));
  EXPECT_FALSE(is_totp("hunter2"));
}

TEST(Totp, RefusesWhatIsNotAKey) {
  const auto not_base32 = totp_key("totp:ABC1");
  ASSERT_FALSE(not_base32);
  EXPECT_NE(not_base32.error().message.find("'1'"), std::string::npos) << not_base32.error().message;
  EXPECT_NE(not_base32.error().message.find("QR code"), std::string::npos) << not_base32.error().message;
  EXPECT_FALSE(totp_key("totp:"));
  EXPECT_FALSE(totp_key("totp: - "));
}

}  // namespace
}  // namespace vimgpt
