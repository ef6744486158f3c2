// Image handling: MIME sniffing, decoding, scaling and encoding of frames for the model.
// libstb provides the stb implementations (no STB_*_IMPLEMENTATION here); the codecs are common/pixels.h.
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "common/file.h"
#include "common/pixels.h"
#include "vision/vision.h"

namespace vimgpt::vision {

Result<EncodedImage> load_image_file(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes) return fail(ErrorKind::Io, "image: " + bytes.error().message);
  auto image = inspect_image(std::move(*bytes));
  if (!image) return fail(image.error().kind, path + ": " + image.error().message);
  return image;
}

Result<Pixels> decode_image(const EncodedImage& image) {
  auto pixels = decode_pixels(image.bytes);
  if (!pixels) return fail(pixels.error().kind, "cannot decode image: " + pixels.error().message);
  return pixels;
}

Result<EncodedImage> encode_image(const Pixels& pixels, ImageFormat format, int jpeg_quality) {
  if (!valid_pixels(pixels)) return fail(ErrorKind::InvalidArgument, "encode: pixel buffer does not match its size");
  EncodedImage image;
  image.width = pixels.width;
  image.height = pixels.height;
  image.format = format;
  if (format == ImageFormat::Png) {
    VIMGPT_TRY(image.bytes, encode_png(pixels));
  } else if (format == ImageFormat::Jpeg) {
    VIMGPT_TRY(image.bytes, encode_jpeg(pixels, jpeg_quality));
  } else {
    return fail(ErrorKind::InvalidArgument, "a model is sent PNG or JPEG, not " + std::string(to_string(format)));
  }
  return image;
}

Result<EncodedImage> prepare_image(const EncodedImage& image, const ImageOptions& options) {
  const bool right_width = options.width == 0 || image.width == options.width;
  // The bytes decide, not the label a caller put on them (the original sent PNG bytes labelled JPEG).
  if (right_width && image.format == options.format && sniff_format(image.bytes) == options.format && image.width > 0 &&
      image.height > 0) {
    return image;
  }
  VIMGPT_TRY(Pixels pixels, decode_image(image));
  return prepare_image(pixels, options);
}

Result<EncodedImage> prepare_image(const Pixels& pixels, const ImageOptions& options) {
  if (options.width == 0 || options.width == pixels.width) {
    return encode_image(pixels, options.format, options.jpeg_quality);
  }
  VIMGPT_TRY(Pixels scaled, scale_to_width(pixels, options.width));
  return encode_image(scaled, options.format, options.jpeg_quality);
}

}  // namespace vimgpt::vision

namespace vimgpt::vision {

Result<EncodedImage> fit_image(const EncodedImage& image, int max_edge, std::size_t max_base64_bytes) {
  const auto base64_size = [](const EncodedImage& encoded) { return (encoded.bytes.size() + 2) / 3 * 4; };
  const bool edge_fits = max_edge <= 0 || std::max(image.width, image.height) <= max_edge;
  const bool bytes_fit = max_base64_bytes == 0 || base64_size(image) <= max_base64_bytes;
  if (edge_fits && bytes_fit) return image;
  VIMGPT_TRY(Pixels pixels, decode_image(image));
  if (!edge_fits) {
    const int width = std::max(
        1, static_cast<int>(static_cast<double>(pixels.width) * max_edge / std::max(pixels.width, pixels.height)));
    VIMGPT_TRY(pixels, scale_to_width(pixels, width));
  }
  EncodedImage fitted = image;
  if (!edge_fits) {
    VIMGPT_TRY(fitted, encode_image(pixels, image.format, 85));
  }
  // Too many bytes: JPEG at lower qualities first (the labels read at 70), then smaller, a fifth at a time.
  for (int attempt = 0; max_base64_bytes > 0 && base64_size(fitted) > max_base64_bytes; ++attempt) {
    if (attempt >= 12) {
      return fail(ErrorKind::InvalidArgument, "the image cannot be made to fit " + std::to_string(max_base64_bytes) +
                                                  " bytes of base64: lower --img-res");
    }
    if (attempt >= 2) {
      VIMGPT_TRY(pixels, scale_to_width(pixels, std::max(1, pixels.width * 4 / 5)));
    }
    VIMGPT_TRY(fitted, encode_image(pixels, ImageFormat::Jpeg, attempt == 0 ? 85 : 70));
  }
  return fitted;
}

}  // namespace vimgpt::vision
