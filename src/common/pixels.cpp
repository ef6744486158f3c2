#include "common/pixels.h"

// libstb provides the stb implementations (no STB_*_IMPLEMENTATION here).
#include <stb_image.h>
#include <stb_image_resize.h>
#include <stb_image_write.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

namespace vimgpt {
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

struct TurboHandle {
  tjhandle handle;
  explicit TurboHandle(tjhandle h) : handle(h) {}
  TurboHandle(const TurboHandle&) = delete;
  TurboHandle& operator=(const TurboHandle&) = delete;
  ~TurboHandle() {
    if (handle != nullptr) tjDestroy(handle);
  }
};

void append_to_string(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

bool is_jpeg(std::string_view bytes) {
  return bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
         static_cast<unsigned char>(bytes[1]) == 0xD8 && static_cast<unsigned char>(bytes[2]) == 0xFF;
}

}  // namespace

Result<Pixels> decode_jpeg(std::string_view bytes) {
  TurboHandle tj(tjInitDecompress());
  if (tj.handle == nullptr) return fail(ErrorKind::Internal, "libturbojpeg: cannot create a decompressor");
  const auto* source = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto size = static_cast<unsigned long>(bytes.size());
  int width = 0;
  int height = 0;
  int subsampling = 0;
  int colorspace = 0;
  if (tjDecompressHeader3(tj.handle, source, size, &width, &height, &subsampling, &colorspace) != 0) {
    return fail(ErrorKind::Parse, std::string("not a readable JPEG: ") + tjGetErrorStr2(tj.handle));
  }
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.channels = 3;
  pixels.data.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3U);
  if (tjDecompress2(tj.handle, source, size, pixels.data.data(), width, 0, height, TJPF_RGB, TJFLAG_FASTDCT) != 0) {
    return fail(ErrorKind::Parse, std::string("JPEG decoding failed: ") + tjGetErrorStr2(tj.handle));
  }
  return pixels;
}

Result<Pixels> decode_pixels(std::string_view bytes) {
  if (is_jpeg(bytes)) return decode_jpeg(bytes);
  int width = 0;
  int height = 0;
  int channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> loaded(
      stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &width,
                            &height, &channels, 3),
      stbi_image_free);
  if (!loaded) return fail(ErrorKind::Parse, std::string("not a readable image: ") + stbi_failure_reason());
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.channels = 3;
  pixels.data.assign(loaded.get(),
                     loaded.get() + static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3U);
  return pixels;
}

Result<std::string> encode_jpeg(const Pixels& pixels, int quality) {
  if (quality < 1 || quality > 100) {
    return fail(ErrorKind::InvalidArgument, "JPEG quality must be 1-100, not " + std::to_string(quality));
  }
  if (pixels.channels != 3 && pixels.channels != 4) {
    return fail(ErrorKind::InvalidArgument, "JPEG encoding takes RGB or RGBA pixels");
  }
  TurboHandle tj(tjInitCompress());
  if (tj.handle == nullptr) return fail(ErrorKind::Internal, "libturbojpeg: cannot create a compressor");
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int status =
      tjCompress2(tj.handle, pixels.data.data(), pixels.width, 0, pixels.height,
                  pixels.channels == 4 ? TJPF_RGBA : TJPF_RGB, &out, &size, TJSAMP_420, quality, TJFLAG_FASTDCT);
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(out, tjFree);
  if (status != 0) return fail(ErrorKind::Internal, std::string("JPEG encoding failed: ") + tjGetErrorStr2(tj.handle));
  return std::string(reinterpret_cast<const char*>(out), size);
}

Result<std::string> encode_png(const Pixels& pixels) {
  if (pixels.channels != 3 && pixels.channels != 4) {
    return fail(ErrorKind::InvalidArgument, "PNG encoding takes RGB or RGBA pixels");
  }
  std::string out;
  if (stbi_write_png_to_func(append_to_string, &out, pixels.width, pixels.height, pixels.channels, pixels.data.data(),
                             pixels.width * pixels.channels) == 0) {
    return fail(ErrorKind::Internal, "PNG encoding failed");
  }
  return out;
}

bool same_picture(std::string_view a, std::string_view b, int tolerance) {
  if (a == b) return true;
  const auto first = decode_pixels(a);
  const auto second = decode_pixels(b);
  if (!first || !second || first->width != second->width || first->height != second->height ||
      first->channels != second->channels)
    return false;
  constexpr int kBlock = 8;  // a JPEG's own block
  const int width = first->width;
  const int height = first->height;
  const auto row = static_cast<std::size_t>(width) * static_cast<std::size_t>(first->channels);
  for (int top = 0; top < height; top += kBlock) {
    for (int left = 0; left < width; left += kBlock) {
      long long off = 0;
      long long values = 0;
      for (int y = top; y < std::min(top + kBlock, height); ++y) {
        const std::size_t from = static_cast<std::size_t>(y) * row + static_cast<std::size_t>(left) * first->channels;
        const std::size_t to = static_cast<std::size_t>(y) * row +
                               static_cast<std::size_t>(std::min(left + kBlock, width)) * first->channels;
        for (std::size_t i = from; i < to; ++i) off += std::abs(first->data[i] - second->data[i]);
        values += static_cast<long long>(to - from);
      }
      if (off > tolerance * values) return false;
    }
  }
  return true;
}

bool valid_pixels(const Pixels& pixels) {
  return pixels.width > 0 && pixels.height > 0 && (pixels.channels == 3 || pixels.channels == 4) &&
         pixels.data.size() == static_cast<std::size_t>(pixels.width) * static_cast<std::size_t>(pixels.height) *
                                   static_cast<std::size_t>(pixels.channels);
}

Result<Pixels> scale_to_width(const Pixels& pixels, int width) {
  if (!valid_pixels(pixels)) return fail(ErrorKind::InvalidArgument, "scale: pixel buffer does not match its size");
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

}  // namespace vimgpt
