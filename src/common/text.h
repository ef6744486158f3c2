// Small text helpers shared by modules.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace vimgpt {

// ASCII lowercase: for schemes, hosts, key names and labels, never for user text.
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Without leading and trailing ASCII whitespace.
inline std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n\f\v") - first + 1);
}

}  // namespace vimgpt
