// Decoded pixels, and JPEG through libjpeg-turbo: the model client re-encodes frames, the hint painter draws
// on them, and stb's JPEG codecs take several times longer for both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace vimgpt {

// Decoded 8-bit pixels, rows top to bottom, `channels` bytes per pixel (3 = RGB, 4 = RGBA).
struct Pixels {
  std::vector<std::uint8_t> data;
  int width = 0;
  int height = 0;
  int channels = 3;
};

// RGB pixels of a JPEG. Parse when the bytes are not a readable JPEG.
Result<Pixels> decode_jpeg(std::string_view bytes);

// RGB or RGBA pixels as a JPEG of `quality` (1-100) with 4:2:0 chroma: labels are dark text on yellow,
// carried by luminance, so colour detail can go.
Result<std::string> encode_jpeg(const Pixels& pixels, int quality);

}  // namespace vimgpt
