// Image handling: MIME sniffing, decoding, scaling and encoding of frames for the model.
// libstb provides the stb implementations (no STB_*_IMPLEMENTATION here); the codecs are common/pixels.h.
#include <stb_image.h>
#include <stb_image_resize.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "common/file.h"
#include "common/pixels.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

// The input span each output pixel covers, with each input pixel's share of it.
struct Taps {
  int first = 0;
  std::vector<float> weights;
};

std::vector<Taps> area_taps(int in, int out) {
  std::vector<Taps> taps(static_cast<std::size_t>(out));
  const double scale = static_cast<double>(in) / out;
  for (int o = 0; o < out; ++o) {
    const double start = o * scale;
    const double end = std::min<double>(in, (o + 1) * scale);
    Taps& tap = taps[static_cast<std::size_t>(o)];
    tap.first = static_cast<int>(start);
    for (int i = tap.first; i < in && i < end; ++i) {
      const double covered = std::min<double>(end, i + 1) - std::max<double>(start, i);
      tap.weights.push_back(static_cast<float>(covered / scale));
    }
  }
  return taps;
}

// Area averaging (a box filter sized to the scale), separable: for screenshots it keeps text as legible as stb's
// Mitchell filter at a fraction of its cost, and never rings around the labels' edges.
void area_downscale(const Pixels& in, Pixels& out) {
  const int channels = in.channels;
  const auto columns = area_taps(in.width, out.width);
  const auto rows = area_taps(in.height, out.height);
  const std::size_t out_row = static_cast<std::size_t>(out.width) * channels;
  std::vector<float> horizontal(out_row * static_cast<std::size_t>(in.height));
  for (int y = 0; y < in.height; ++y) {
    const std::uint8_t* source = in.data.data() + static_cast<std::size_t>(y) * in.width * channels;
    float* target = horizontal.data() + static_cast<std::size_t>(y) * out_row;
    for (int x = 0; x < out.width; ++x) {
      const Taps& tap = columns[static_cast<std::size_t>(x)];
      for (int c = 0; c < channels; ++c) {
        float sum = 0;
        for (std::size_t k = 0; k < tap.weights.size(); ++k) {
          sum += tap.weights[k] * source[(static_cast<std::size_t>(tap.first) + k) * channels + c];
        }
        target[static_cast<std::size_t>(x) * channels + c] = sum;
      }
    }
  }
  std::vector<float> accumulator(out_row);
  for (int y = 0; y < out.height; ++y) {
    const Taps& tap = rows[static_cast<std::size_t>(y)];
    std::fill(accumulator.begin(), accumulator.end(), 0.0F);
    for (std::size_t k = 0; k < tap.weights.size(); ++k) {
      const float weight = tap.weights[k];
      const float* source = horizontal.data() + (static_cast<std::size_t>(tap.first) + k) * out_row;
      for (std::size_t i = 0; i < out_row; ++i) accumulator[i] += weight * source[i];
    }
    std::uint8_t* target = out.data.data() + static_cast<std::size_t>(y) * out_row;
    for (std::size_t i = 0; i < out_row; ++i) {
      target[i] = static_cast<std::uint8_t>(std::clamp(accumulator[i] + 0.5F, 0.0F, 255.0F));
    }
  }
}

bool valid(const Pixels& pixels) {
  return pixels.width > 0 && pixels.height > 0 && (pixels.channels == 3 || pixels.channels == 4) &&
         pixels.data.size() == static_cast<std::size_t>(pixels.width) * static_cast<std::size_t>(pixels.height) *
                                   static_cast<std::size_t>(pixels.channels);
}

}  // namespace

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

Result<Pixels> scale_to_width(const Pixels& pixels, int width) {
  if (!valid(pixels)) return fail(ErrorKind::InvalidArgument, "scale: pixel buffer does not match its size");
  if (width <= 0) return fail(ErrorKind::InvalidArgument, "scale: the width must be positive");
  if (width == pixels.width) return pixels;
  const double ratio = static_cast<double>(width) / pixels.width;
  const int height = std::max(1, static_cast<int>(std::lround(pixels.height * ratio)));
  Pixels scaled;
  scaled.width = width;
  scaled.height = height;
  scaled.channels = pixels.channels;
  scaled.data.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
                     static_cast<std::size_t>(pixels.channels));
  if (width < pixels.width) {
    area_downscale(pixels, scaled);
    return scaled;
  }
  if (stbir_resize_uint8(pixels.data.data(), pixels.width, pixels.height, 0, scaled.data.data(), width, height, 0,
                         pixels.channels) == 0) {
    return fail(ErrorKind::Internal, "stb_image_resize failed");
  }
  return scaled;
}

Result<EncodedImage> encode_image(const Pixels& pixels, ImageFormat format, int jpeg_quality) {
  if (!valid(pixels)) return fail(ErrorKind::InvalidArgument, "encode: pixel buffer does not match its size");
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
