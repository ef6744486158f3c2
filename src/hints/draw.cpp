// Drawing Vimium's markers onto a captured frame (image and both-frames modes): common/pixels.h decodes and
// encodes, stb_truetype renders DejaVu Sans Bold. The look is the overlay's (vimium.css
// without its shadows, see hint_script.cpp): bold 11px text #302505, a #fff785 → #ffc542 gradient, a 1px
// #c38a22 border, 3px corners, padding 1px 3px 0 3px.
#include <stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "common/file.h"
#include "common/pixels.h"
#include "hints/hints.h"

namespace vimgpt::hints {

namespace {

constexpr std::string_view kDefaultFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

struct Font {
  std::vector<unsigned char> data;
  stbtt_fontinfo info{};
};

// Fonts are read once per process: a pass draws hundreds of labels with the same few glyphs.
Result<const Font*> load_font(std::string_view path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Font>, std::less<>> cache;
  std::scoped_lock lock(mutex);
  if (auto it = cache.find(path); it != cache.end()) return it->second.get();
  auto bytes = read_file(std::string(path));
  if (!bytes)
    return fail(ErrorKind::Io, "cannot read the label font " + std::string(path) + " (install fonts-dejavu-core)");
  auto font = std::make_unique<Font>();
  font->data.assign(bytes->begin(), bytes->end());
  if (!stbtt_InitFont(&font->info, font->data.data(), stbtt_GetFontOffsetForIndex(font->data.data(), 0)))
    return fail(ErrorKind::Io, "not a TrueType font: " + std::string(path));
  const Font* raw = font.get();
  cache.emplace(std::string(path), std::move(font));
  return raw;
}

struct Rgb {
  float r, g, b;
};

struct Canvas {
  unsigned char* pixels;
  int width;
  int height;
  int channels;

  void blend(int x, int y, Rgb color, float alpha) {
    if (x < 0 || y < 0 || x >= width || y >= height || alpha <= 0) return;
    alpha = std::min(alpha, 1.0f);
    unsigned char* p = pixels + (static_cast<std::size_t>(y) * width + x) * channels;
    p[0] = static_cast<unsigned char>(std::lround(p[0] + (color.r - p[0]) * alpha));
    p[1] = static_cast<unsigned char>(std::lround(p[1] + (color.g - p[1]) * alpha));
    p[2] = static_cast<unsigned char>(std::lround(p[2] + (color.b - p[2]) * alpha));
  }
};

struct Box {
  double x, y, w, h;
  [[nodiscard]] bool overlaps(const Box& o) const {
    return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
  }
};

// Coverage of a pixel by a rounded rectangle (1px anti-aliasing at the corners).
float rounded_coverage(double px, double py, const Box& b, double radius) {
  const double cx = std::clamp(px, b.x + radius, b.x + b.w - radius);
  const double cy = std::clamp(py, b.y + radius, b.y + b.h - radius);
  const double d = std::hypot(px - cx, py - cy);
  return static_cast<float>(std::clamp(radius + 0.5 - d, 0.0, 1.0));
}

class LabelPainter {
 public:
  LabelPainter(const Font& font, double scale) : font_(font), scale_(scale) {
    font_scale_ = stbtt_ScaleForMappingEmToPixels(&font_.info, static_cast<float>(11 * scale));
    int ascent = 0, descent = 0, gap = 0;
    stbtt_GetFontVMetrics(&font_.info, &ascent, &descent, &gap);
    ascent_ = static_cast<double>(ascent) * font_scale_;
    descent_ = -static_cast<double>(descent) * font_scale_;
  }

  // The marker's box for `text` at (x, y), device pixels.
  [[nodiscard]] Box measure(std::string_view text, double x, double y) const {
    double advance = 0;
    for (const char c : text) advance += glyph_advance(c);
    return {x, y, std::ceil(advance + (3 + 3 + 2) * scale_), std::ceil((11 + 1 + 2) * scale_)};
  }

  void paint(Canvas& canvas, std::string_view text, const Box& box) {
    const double s = scale_;
    // Border, then the gradient inside it.
    const double radius = 3 * s, border = std::max(1.0, std::round(s));
    const Box inner{box.x + border, box.y + border, box.w - 2 * border, box.h - 2 * border};
    for (int y = static_cast<int>(box.y); y < static_cast<int>(std::ceil(box.y + box.h)); ++y) {
      const double t = std::clamp((y + 0.5 - inner.y) / std::max(1.0, inner.h), 0.0, 1.0);
      const Rgb fill{static_cast<float>(0xff + (0xff - 0xff) * t), static_cast<float>(0xf7 + (0xc5 - 0xf7) * t),
                     static_cast<float>(0x85 + (0x42 - 0x85) * t)};
      for (int x = static_cast<int>(box.x); x < static_cast<int>(std::ceil(box.x + box.w)); ++x) {
        const float outer = rounded_coverage(x + 0.5, y + 0.5, box, radius);
        if (outer <= 0) continue;
        canvas.blend(x, y, {0xc3, 0x8a, 0x22}, outer);
        canvas.blend(x, y, fill, rounded_coverage(x + 0.5, y + 0.5, inner, std::max(0.0, radius - border)));
      }
    }
    // Text: line-height 100% centres the em box.
    const double baseline = box.y + border + 1 * s + (11 * s - (ascent_ + descent_)) / 2 + ascent_;
    double pen = box.x + border + 3 * s;
    for (const char c : text) {
      draw_glyph(canvas, c, pen, baseline, {0x30, 0x25, 0x05});
      pen += glyph_advance(c);
    }
  }

 private:
  struct Glyph {
    int width = 0, height = 0, x_offset = 0, y_offset = 0;
    std::vector<unsigned char> coverage;
  };

  [[nodiscard]] double glyph_advance(char c) const {
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&font_.info, static_cast<unsigned char>(c), &advance, &bearing);
    return static_cast<double>(advance) * font_scale_;
  }

  const Glyph& glyph(char c) {
    auto it = glyphs_.find(c);
    if (it != glyphs_.end()) return it->second;
    Glyph g;
    unsigned char* bitmap =
        stbtt_GetCodepointBitmap(&font_.info, font_scale_, font_scale_, static_cast<unsigned char>(c), &g.width,
                                 &g.height, &g.x_offset, &g.y_offset);
    if (bitmap) {
      g.coverage.assign(bitmap, bitmap + static_cast<std::size_t>(g.width) * g.height);
      stbtt_FreeBitmap(bitmap, nullptr);
    }
    return glyphs_.emplace(c, std::move(g)).first->second;
  }

  void draw_glyph(Canvas& canvas, char c, double pen, double baseline, Rgb color) {
    const Glyph& g = glyph(c);
    const int left = static_cast<int>(std::lround(pen)) + g.x_offset;
    const int top = static_cast<int>(std::lround(baseline)) + g.y_offset;
    for (int y = 0; y < g.height; ++y)
      for (int x = 0; x < g.width; ++x)
        canvas.blend(left + x, top + y, color, g.coverage[static_cast<std::size_t>(y) * g.width + x] / 255.0f);
  }

  const Font& font_;
  double scale_;
  float font_scale_ = 1;
  double ascent_ = 0, descent_ = 0;
  std::map<char, Glyph> glyphs_;
};

// Each label goes at its element's top-left; one that would cover an earlier label moves right past it
// (then down), so every label stays readable.
Box place(const Box& wanted, const std::vector<Box>& placed, int width, int height) {
  Box box = wanted;
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto hit = std::find_if(placed.begin(), placed.end(), [&](const Box& other) { return box.overlaps(other); });
    if (hit == placed.end()) break;
    if (hit->x + hit->w + 1 + box.w <= width)
      box.x = hit->x + hit->w + 1;
    else
      box = {wanted.x, hit->y + hit->h + 1, box.w, box.h};
  }
  box.x = std::clamp(box.x, 0.0, std::max(0.0, width - box.w));
  box.y = std::clamp(box.y, 0.0, std::max(0.0, height - box.h));
  return box;
}

// RGB pixels of the frame.
Result<Pixels> decode(const browser::Screenshot& frame) {
  if (frame.format == browser::ImageFormat::Webp)
    return fail(ErrorKind::Unsupported, "frames are drawn on as PNG or JPEG, not WebP");
  auto pixels = decode_pixels(frame.bytes);
  if (!pixels) return fail(pixels.error().kind, "cannot decode the captured frame: " + pixels.error().message);
  return pixels;
}

// RGB pixels back into the frame's own format.
Result<browser::Screenshot> encode(const Pixels& image, const browser::Screenshot& like, int jpeg_quality) {
  browser::Screenshot out;
  out.format = like.format;
  out.width = image.width;
  out.height = image.height;
  if (like.format == browser::ImageFormat::Jpeg) {
    VIMGPT_TRY(out.bytes, encode_jpeg(image, jpeg_quality));
    return out;
  }
  VIMGPT_TRY(out.bytes, encode_png(image));
  return out;
}

}  // namespace

Result<browser::Screenshot> draw_labels(const browser::Screenshot& frame, const HintMap& map,
                                        std::string_view font_path, int jpeg_quality, double label_scale) {
  VIMGPT_TRY(Pixels image, decode(frame));
  VIMGPT_TRY(const Font* font, load_font(font_path.empty() ? kDefaultFont : font_path));
  const double scale = map.viewport_width() > 0 ? image.width / map.viewport_width() : 1.0;
  Canvas canvas{image.data.data(), image.width, image.height, 3};
  LabelPainter painter(*font, scale * label_scale);
  std::vector<Box> placed;
  placed.reserve(map.size());
  for (const auto& hint : map.hints()) {
    const Box wanted = painter.measure(hint.label, std::floor(hint.rect.x * scale), std::floor(hint.rect.y * scale));
    placed.push_back(place(wanted, placed, image.width, image.height));
  }
  for (std::size_t i = 0; i < placed.size(); ++i) painter.paint(canvas, map.hints()[i].label, placed[i]);
  return encode(image, frame, jpeg_quality);
}

Result<browser::Screenshot> redact(const browser::Screenshot& frame, const std::vector<Rect>& rects,
                                   double viewport_width, int jpeg_quality) {
  VIMGPT_TRY(Pixels image, decode(frame));
  const double scale = viewport_width > 0 ? image.width / viewport_width : 1.0;
  for (const auto& rect : rects) {
    // Whole pixels, rounded outwards: no antialiased edge of the field's text survives.
    const int left = std::clamp(static_cast<int>(std::floor(rect.x * scale)), 0, image.width);
    const int top = std::clamp(static_cast<int>(std::floor(rect.y * scale)), 0, image.height);
    const int right = std::clamp(static_cast<int>(std::ceil((rect.x + rect.width) * scale)), 0, image.width);
    const int bottom = std::clamp(static_cast<int>(std::ceil((rect.y + rect.height) * scale)), 0, image.height);
    for (int y = top; y < bottom; ++y)
      std::fill_n(image.data.data() + (static_cast<std::size_t>(y) * image.width + left) * 3,
                  static_cast<std::size_t>(right - left) * 3, 0);
  }
  return encode(image, frame, jpeg_quality);
}

}  // namespace vimgpt::hints
