// One-time codes for `--secret NAME=totp:BASE32`: the key an authenticator app is given (RFC 4648 base32), and the
// code it would show at a moment (RFC 6238 TOTP: HMAC-SHA-1, 30-second steps, 6 digits, as the apps default to).
// The code is worked out when it is typed; neither it nor the key reaches the model or the record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace vimgpt {

inline constexpr std::string_view kTotpPrefix = "totp:";
inline constexpr int kTotpDigits = 6;
inline constexpr std::int64_t kTotpPeriodSeconds = 30;

// Whether a secret's value is a one-time-code key ("totp:...") rather than text to type as it is.
bool is_totp(std::string_view secret);

// The key's bytes from "totp:BASE32" (letters in either case; spaces, hyphens and '=' padding ignored, as apps show
// and accept them); an error saying what is wrong with it.
Result<std::string> totp_key(std::string_view secret);

// The code for `key` at `unix_seconds`, zero-padded to `digits`.
std::string totp_code(std::string_view key, std::int64_t unix_seconds, int digits = kTotpDigits);

}  // namespace vimgpt
