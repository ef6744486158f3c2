// Small text helpers shared by modules.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace vimgpt {

// ASCII lowercase: for schemes, hosts, key names and labels, never for user text.
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Text as HTML shows it: the markup characters escaped (for pages vimgpt writes: reports, a refused frame's page).
inline std::string html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// How many characters (code points) UTF-8 text holds.
inline std::size_t utf8_length(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// 1 to `max_digits` (at most 9) ASCII digits as a number; nullopt for anything else (a sign, a space, nothing). The
// flags' small numbers and names are read by hand: std::regex made a file that used it compile 13 CPU-seconds longer.
inline std::optional<int> parse_digits(std::string_view text, std::size_t max_digits) {
  if (text.empty() || text.size() > std::min<std::size_t>(max_digits, 9) ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  int value = 0;
  for (const char c : text) value = value * 10 + (c - '0');
  return value;
}

// -?DIGITS(.DIGITS)?: a plain decimal number, nothing around it.
inline bool is_plain_decimal(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  const auto point = text.find('.');
  const auto digits = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  return digits(text.substr(0, point)) && (point == std::string_view::npos || digits(text.substr(point + 1)));
}

// Without leading and trailing ASCII whitespace.
inline std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n\f\v") - first + 1);
}

// A short, stable fingerprint of `text` (64-bit FNV-1a as 16 hex digits): the same on every build and machine,
// for cache keys and for telling whether a page's text is what it was. Not for secrets.
inline std::string content_digest(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<std::size_t>(i)] = kHex[hash & 0xf];
  return out;
}

// `words` × 32 random bits from the system's source as lowercase hex: session ids, tokens, cache keys.
inline std::string random_hex(int words) {
  std::random_device random;
  std::string out;
  for (int i = 0; i < words; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", random());
    out += part;
  }
  return out;
}

}  // namespace vimgpt
