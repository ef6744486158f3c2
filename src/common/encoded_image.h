// An encoded image (PNG, JPEG, WebP, GIF) with what its header says, read once when it is made: the one type
// for a captured frame (browser), a frame with labels drawn on it (hints) and an image sent to a model (vision).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace vimgpt {

enum class ImageFormat { Png, Jpeg, Webp, Gif };
std::string_view mime_type(ImageFormat format);  // "image/png", ...
std::string_view to_string(ImageFormat format);  // "png", "jpeg", "webp", "gif"
// "png", "jpeg" or "jpg", "webp", any case; InvalidArgument otherwise.
Result<ImageFormat> parse_image_format(std::string_view name);

struct EncodedImage {
  std::string bytes;
  ImageFormat format = ImageFormat::Png;  // always what the bytes are
  int width = 0;                          // pixels
  int height = 0;
  [[nodiscard]] std::string_view mime() const { return mime_type(format); }
};

// The format the magic bytes say, or nothing.
std::optional<ImageFormat> sniff_format(std::string_view bytes);

// Wraps bytes from a file, a capture or an encoder: format and size from the header, without decoding.
// Parse error when they are not a PNG, JPEG, WebP or GIF image whose header gives its size.
Result<EncodedImage> inspect_image(std::string bytes);

}  // namespace vimgpt
