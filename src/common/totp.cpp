#include "common/totp.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

namespace vimgpt {

bool is_totp(std::string_view secret) {
  return secret.starts_with(kTotpPrefix);
}

Result<std::string> totp_key(std::string_view secret) {
  if (!is_totp(secret)) return fail(ErrorKind::InvalidArgument, "a one-time-code key starts with totp:");
  std::string key;
  std::uint32_t bits = 0;
  int held = 0;
  for (char c : secret.substr(kTotpPrefix.size())) {
    if (c == ' ' || c == '-' || c == '=') continue;
    int value = -1;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    if (c >= 'a' && c <= 'z') value = c - 'a';
    if (c >= '2' && c <= '7') value = c - '2' + 26;
    if (value < 0) {
      return fail(ErrorKind::InvalidArgument, std::string("the one-time-code key has '") + c +
                                                  "', which is not base32 (A-Z and 2-7): give the key as the site "
                                                  "shows it beside its QR code");
    }
    bits = (bits << 5) | static_cast<std::uint32_t>(value);
    held += 5;
    if (held >= 8) {
      held -= 8;
      key.push_back(static_cast<char>((bits >> held) & 0xFF));
    }
  }
  if (key.empty()) return fail(ErrorKind::InvalidArgument, "the one-time-code key after totp: is empty");
  return key;
}

std::string totp_code(std::string_view key, std::int64_t unix_seconds, int digits) {
  // RFC 4226 HOTP over the number of periods since the epoch, as 8 big-endian bytes.
  const auto counter = static_cast<std::uint64_t>(unix_seconds / kTotpPeriodSeconds);
  std::array<unsigned char, 8> message{};
  for (int i = 0; i < 8; ++i) message[7 - i] = static_cast<unsigned char>((counter >> (8 * i)) & 0xFF);
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), message.data(), message.size(), mac.data(), &length);
  // Dynamic truncation: 31 bits read at the offset the last byte's low nibble names.
  const unsigned offset = mac[length - 1] & 0x0F;
  const std::uint32_t value = (static_cast<std::uint32_t>(mac[offset] & 0x7F) << 24) |
                              (static_cast<std::uint32_t>(mac[offset + 1]) << 16) |
                              (static_cast<std::uint32_t>(mac[offset + 2]) << 8) | mac[offset + 3];
  std::uint32_t modulus = 1;
  for (int i = 0; i < digits; ++i) modulus *= 10;
  std::string code = std::to_string(value % modulus);
  return std::string(static_cast<std::size_t>(digits) - code.size(), '0') + code;
}

}  // namespace vimgpt
