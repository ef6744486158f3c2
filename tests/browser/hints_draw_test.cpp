// Drawing modes against a real page: image mode leaves the DOM byte-identical and puts Vimium-yellow
// labels on the frame; overlay mode draws them in the page and takes them away after the capture;
// both-frames returns the clean frame too.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdio>

#include "browser/hints_support.h"

namespace vimgpt::hints {
namespace {

using test_support::HintsBrowserTest;

struct Pixels {
  std::vector<unsigned char> data;
  int width = 0, height = 0;
  [[nodiscard]] const unsigned char* at(double x, double y) const {
    return data.data() + (static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)) * 3;
  }
};

Pixels decode(const browser::Screenshot& shot) {
  Pixels out;
  int channels = 0;
  unsigned char* data =
      stbi_load_from_memory(reinterpret_cast<const unsigned char*>(shot.bytes.data()),
                            static_cast<int>(shot.bytes.size()), &out.width, &out.height, &channels, 3);
  if (data) out.data.assign(data, data + static_cast<std::size_t>(out.width) * out.height * 3);
  stbi_image_free(data);
  return out;
}

bool is_marker_yellow(const unsigned char* p) {
  return p[0] > 230 && p[1] > 180 && p[2] > 50 && p[2] < 170;
}

class HintsDrawing : public HintsBrowserTest {
 protected:
  void SetUp() override {
    HintsBrowserTest::SetUp();
    open("/fx/hints/draw.html");
  }
  static std::string outer_html() {
    auto html = tab().evaluate_in_page("document.documentElement.outerHTML");
    EXPECT_TRUE(html) << html.error().describe();
    return html ? html->get<std::string>() : std::string();
  }
  // The first four links are far apart: their labels sit exactly at their top-left corners.
  static void expect_labels_at_links(const Capture& captured, bool yellow) {
    const Pixels image = decode(captured.labelled);
    ASSERT_GT(image.width, 0);
    ASSERT_EQ(captured.map.size(), 6u);
    for (std::size_t i = 0; i < 4; ++i) {
      const Rect& r = captured.map.hints()[i].rect;
      EXPECT_EQ(is_marker_yellow(image.at(r.x + 2, r.y + 2)), yellow) << captured.map.hints()[i].label;
    }
  }
};

TEST_F(HintsDrawing, ImageModeLeavesTheDomByteIdentical) {
  const std::string before = outer_html();
  CaptureOptions options;
  options.mode = DrawMode::Image;
  auto captured = capture(tab(), options);
  ASSERT_TRUE(captured) << captured.error().describe();
  EXPECT_EQ(outer_html(), before);
  expect_labels_at_links(*captured, true);
  EXPECT_FALSE(captured->clean.has_value());
}

TEST_F(HintsDrawing, BothFramesGivesCleanAndLabelledFromOneCapture) {
  const std::string before = outer_html();
  CaptureOptions options;
  options.mode = DrawMode::BothFrames;
  auto captured = capture(tab(), options);
  ASSERT_TRUE(captured) << captured.error().describe();
  EXPECT_EQ(outer_html(), before);
  ASSERT_TRUE(captured->clean.has_value());
  expect_labels_at_links(*captured, true);
  Capture clean_only{captured->map, *captured->clean, std::nullopt, {}};
  expect_labels_at_links(clean_only, false);
  // Overlapping elements (2px apart): the second label is nudged right past the first, so both stay readable.
  // A one-letter label is under 20px wide; without the nudge nothing right of that would be yellow.
  const Pixels image = decode(captured->labelled);
  const Rect& first = captured->map.hints()[4].rect;
  int yellow_right = 0;
  for (double y = first.y; y < first.y + 14; ++y)
    for (double x = first.x + 21; x < first.x + 40; ++x) yellow_right += is_marker_yellow(image.at(x, y)) ? 1 : 0;
  EXPECT_GT(yellow_right, 20);
}

TEST_F(HintsDrawing, OverlayModeDrawsInThePageAndRemovesTheMarkers) {
  const std::string before = outer_html();
  auto captured = capture(tab());
  ASSERT_TRUE(captured) << captured.error().describe();
  expect_labels_at_links(*captured, true);
  EXPECT_EQ(outer_html(), before) << "the overlay must be gone after the capture";
  // And the page cannot see into the markers while they are up.
  ASSERT_TRUE(show_overlay(tab(), captured->map));
  auto visible = tab().evaluate_in_page(
      "(() => { const h = document.querySelector('vimgpt-hints'); return [!!h, h && h.shadowRoot === null]; })()");
  ASSERT_TRUE(visible) << visible.error().describe();
  EXPECT_EQ(*visible, wire::Json::parse("[true, true]"));
  ASSERT_TRUE(remove_overlay(tab()));
  EXPECT_EQ(outer_html(), before);
}

TEST_F(HintsDrawing, JpegFramesStayJpeg) {
  CaptureOptions options;
  options.mode = DrawMode::Image;
  options.screenshot.format = browser::ImageFormat::Jpeg;
  auto captured = capture(tab(), options);
  ASSERT_TRUE(captured) << captured.error().describe();
  EXPECT_EQ(captured->labelled.format, browser::ImageFormat::Jpeg);
  expect_labels_at_links(*captured, true);
}

}  // namespace
}  // namespace vimgpt::hints
