// Base64 for data URLs and JSON payloads (RFC 4648, standard alphabet, padded).
#include <array>

#include "http/http.h"

namespace vimgpt::http {

namespace {
constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.resize((bytes.size() + 2) / 3 * 4);
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t i = 0;
  std::size_t o = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (unsigned{in[i]} << 16U) | (unsigned{in[i + 1]} << 8U) | unsigned{in[i + 2]};
    out[o++] = kAlphabet[(v >> 18U) & 63U];
    out[o++] = kAlphabet[(v >> 12U) & 63U];
    out[o++] = kAlphabet[(v >> 6U) & 63U];
    out[o++] = kAlphabet[v & 63U];
  }
  if (i < bytes.size()) {
    unsigned v = unsigned{in[i]} << 16U;
    if (i + 1 < bytes.size()) v |= unsigned{in[i + 1]} << 8U;
    out[o++] = kAlphabet[(v >> 18U) & 63U];
    out[o++] = kAlphabet[(v >> 12U) & 63U];
    out[o++] = i + 1 < bytes.size() ? kAlphabet[(v >> 6U) & 63U] : '=';
    out[o++] = '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  static const auto table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (std::size_t i = 0; i < kAlphabet.size(); ++i)
      t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int>(i);
    return t;
  }();
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned buffer = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (char c : text) {
    if (c == '=') {
      ++padding;
      continue;
    }
    if (c == '\n' || c == '\r') continue;
    const int value = table[static_cast<unsigned char>(c)];
    if (value < 0 || padding > 0) return std::nullopt;
    buffer = (buffer << 6U) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  if (padding > 2) return std::nullopt;
  return out;
}

}  // namespace vimgpt::http
