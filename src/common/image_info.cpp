#include "common/image_info.h"

#include <cstdint>

namespace vimgpt {
namespace {

std::uint32_t be16(std::string_view b, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(b[at])} << 8) | static_cast<unsigned char>(b[at + 1]);
}
std::uint32_t be32(std::string_view b, std::size_t at) {
  return (be16(b, at) << 16) | be16(b, at + 2);
}
std::uint32_t le16(std::string_view b, std::size_t at) {
  return (std::uint32_t{static_cast<unsigned char>(b[at + 1])} << 8) | static_cast<unsigned char>(b[at]);
}
std::uint32_t le24(std::string_view b, std::size_t at) {
  return le16(b, at) | (std::uint32_t{static_cast<unsigned char>(b[at + 2])} << 16);
}

std::optional<ImageInfo> sniff_png(std::string_view b) {
  if (b.size() < 24 || b.substr(0, 8) != "\x89PNG\r\n\x1a\n" || b.substr(12, 4) != "IHDR") return std::nullopt;
  return ImageInfo{"image/png", static_cast<int>(be32(b, 16)), static_cast<int>(be32(b, 20))};
}

std::optional<ImageInfo> sniff_jpeg(std::string_view b) {
  if (b.size() < 4 || static_cast<unsigned char>(b[0]) != 0xFF || static_cast<unsigned char>(b[1]) != 0xD8) {
    return std::nullopt;
  }
  std::size_t at = 2;
  while (at + 9 < b.size()) {
    if (static_cast<unsigned char>(b[at]) != 0xFF) return std::nullopt;
    const auto marker = static_cast<unsigned char>(b[at + 1]);
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    // Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      return ImageInfo{"image/jpeg", static_cast<int>(be16(b, at + 7)), static_cast<int>(be16(b, at + 5))};
    }
    at += 2 + be16(b, at + 2);
  }
  return std::nullopt;
}

std::optional<ImageInfo> sniff_webp(std::string_view b) {
  if (b.size() < 30 || b.substr(0, 4) != "RIFF" || b.substr(8, 4) != "WEBP") return std::nullopt;
  const auto chunk = b.substr(12, 4);
  if (chunk == "VP8X") {
    return ImageInfo{"image/webp", static_cast<int>(le24(b, 24) + 1), static_cast<int>(le24(b, 27) + 1)};
  }
  if (chunk == "VP8 ") {
    return ImageInfo{"image/webp", static_cast<int>(le16(b, 26) & 0x3FFF), static_cast<int>(le16(b, 28) & 0x3FFF)};
  }
  if (chunk == "VP8L") {
    const std::uint32_t bits = le16(b, 21) | (le16(b, 23) << 16);
    return ImageInfo{"image/webp", static_cast<int>((bits & 0x3FFF) + 1),
                     static_cast<int>(((bits >> 14) & 0x3FFF) + 1)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<ImageInfo> sniff_image(std::string_view bytes) {
  if (auto png = sniff_png(bytes)) return png;
  if (auto jpeg = sniff_jpeg(bytes)) return jpeg;
  return sniff_webp(bytes);
}

}  // namespace vimgpt
