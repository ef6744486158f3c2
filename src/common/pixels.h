// Decoded pixels, their codecs and scaling, for the model client (which re-encodes frames), the hint painter (which
// draws on them) and an engine that cannot scale at capture: JPEG through libjpeg-turbo (stb's JPEG codecs take several
// times longer), PNG and the rest through stb_image.
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

// RGB pixels of a JPEG, PNG, GIF, BMP, ... (whatever stb_image reads). Parse when the bytes are none.
Result<Pixels> decode_pixels(std::string_view bytes);

// RGB or RGBA pixels as a JPEG of `quality` (1-100) with 4:2:0 chroma: labels are dark text on yellow,
// carried by luminance, so colour detail can go.
Result<std::string> encode_jpeg(const Pixels& pixels, int quality);

// RGB or RGBA pixels as a PNG.
Result<std::string> encode_png(const Pixels& pixels);

// Whether two encoded images show the same picture: the same bytes, or pixels of the same size that differ in every 8x8
// block by at most `tolerance` levels on average. (A page repainted with nothing changed can come back a few levels off
// in a spot, or a few glyph-edge pixels 30 levels off: a tile rastered again, then JPEG-encoded. A change anyone could
// see, a character or a check mark, moves a block's pixels by far more.) False when either cannot be decoded.
bool same_picture(std::string_view a, std::string_view b, int tolerance);

// Whether the buffer holds width x height pixels of 3 or 4 channels.
bool valid_pixels(const Pixels& pixels);

// To `width`, the height in proportion (the input itself when it has that width already): area averaging down (text
// stays legible, no ringing around labels), stb's filter up.
Result<Pixels> scale_to_width(const Pixels& pixels, int width);

}  // namespace vimgpt
