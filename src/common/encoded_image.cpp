#include "common/encoded_image.h"

#include <cstdint>
#include <optional>

#include "common/text.h"

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
struct Header {
  ImageFormat format;
  int width;
  int height;
};

std::uint32_t le24(std::string_view b, std::size_t at) {
  return le16(b, at) | (std::uint32_t{static_cast<unsigned char>(b[at + 2])} << 16);
}

std::optional<Header> sniff_png(std::string_view b) {
  if (b.size() < 24 || b.substr(0, 8) != "\x89PNG\r\n\x1a\n" || b.substr(12, 4) != "IHDR") return std::nullopt;
  return Header{ImageFormat::Png, static_cast<int>(be32(b, 16)), static_cast<int>(be32(b, 20))};
}

std::optional<Header> sniff_jpeg(std::string_view b) {
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
      return Header{ImageFormat::Jpeg, static_cast<int>(be16(b, at + 7)), static_cast<int>(be16(b, at + 5))};
    }
    at += 2 + be16(b, at + 2);
  }
  return std::nullopt;
}

std::optional<Header> sniff_webp(std::string_view b) {
  if (b.size() < 30 || b.substr(0, 4) != "RIFF" || b.substr(8, 4) != "WEBP") return std::nullopt;
  const auto chunk = b.substr(12, 4);
  if (chunk == "VP8X") {
    return Header{ImageFormat::Webp, static_cast<int>(le24(b, 24) + 1), static_cast<int>(le24(b, 27) + 1)};
  }
  if (chunk == "VP8 ") {
    return Header{ImageFormat::Webp, static_cast<int>(le16(b, 26) & 0x3FFF), static_cast<int>(le16(b, 28) & 0x3FFF)};
  }
  if (chunk == "VP8L") {
    const std::uint32_t bits = le16(b, 21) | (le16(b, 23) << 16);
    return Header{ImageFormat::Webp, static_cast<int>((bits & 0x3FFF) + 1),
                  static_cast<int>(((bits >> 14) & 0x3FFF) + 1)};
  }
  return std::nullopt;
}

std::optional<Header> sniff_gif(std::string_view b) {
  if (b.size() < 10 || (b.substr(0, 6) != "GIF87a" && b.substr(0, 6) != "GIF89a")) return std::nullopt;
  return Header{ImageFormat::Gif, static_cast<int>(le16(b, 6)), static_cast<int>(le16(b, 8))};
}

std::optional<Header> sniff(std::string_view bytes) {
  if (auto png = sniff_png(bytes)) return png;
  if (auto jpeg = sniff_jpeg(bytes)) return jpeg;
  if (auto gif = sniff_gif(bytes)) return gif;
  return sniff_webp(bytes);
}

}  // namespace

std::string_view mime_type(ImageFormat format) {
  switch (format) {
    case ImageFormat::Png: return "image/png";
    case ImageFormat::Jpeg: return "image/jpeg";
    case ImageFormat::Webp: return "image/webp";
    case ImageFormat::Gif: return "image/gif";
  }
  return "application/octet-stream";
}

std::string_view to_string(ImageFormat format) {
  return mime_type(format).substr(6);
}

Result<ImageFormat> parse_image_format(std::string_view name) {
  const std::string n = ascii_lower(name);
  if (n == "png") return ImageFormat::Png;
  if (n == "jpeg" || n == "jpg") return ImageFormat::Jpeg;
  if (n == "webp") return ImageFormat::Webp;
  return fail(ErrorKind::InvalidArgument, "unknown image format '" + std::string(name) + "' (use png, jpeg or webp)");
}

std::optional<ImageFormat> sniff_format(std::string_view bytes) {
  if (bytes.starts_with("\x89PNG\r\n\x1a\n")) return ImageFormat::Png;
  if (bytes.starts_with("\xFF\xD8\xFF")) return ImageFormat::Jpeg;
  if (bytes.starts_with("GIF87a") || bytes.starts_with("GIF89a")) return ImageFormat::Gif;
  if (bytes.size() >= 12 && bytes.substr(0, 4) == "RIFF" && bytes.substr(8, 4) == "WEBP") return ImageFormat::Webp;
  return std::nullopt;
}

Result<EncodedImage> inspect_image(std::string bytes) {
  const auto header = sniff(bytes);
  if (!header || header->width <= 0 || header->height <= 0) {
    return fail(ErrorKind::Parse, "not a PNG, JPEG, WebP or GIF image whose header gives its size");
  }
  return EncodedImage{std::move(bytes), header->format, header->width, header->height};
}

}  // namespace vimgpt
