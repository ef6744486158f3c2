// Every saved real page loads, a hint pass in each drawing mode succeeds with hints and a labelled frame that decodes
// at the size the capture says, and clicking a few hints (buttons and fields first, a link last) does not fail.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "browser/hints_support.h"
#include "common/pixels.h"
#include "support/saved_pages.h"

namespace vimgpt::hints {
namespace {

using test_support::HintsBrowserTest;

// Without the saved pages, one instance that skips and says why (an empty list would hide the suite).
constexpr const char* kAbsent = "none";
std::vector<std::string> page_names() {
  auto names = test::saved_page_names();
  if (names.empty()) names.emplace_back(kAbsent);
  return names;
}

class HintsRealPages : public HintsBrowserTest, public ::testing::WithParamInterface<std::string> {};

// Prefers elements whose click keeps us on the page, so several clicks can be made in a row.
const Hint* pick(const HintMap& map, std::size_t nth) {
  std::vector<const Hint*> order;
  for (const auto& hint : map.hints())
    if (hint.role != "link") order.push_back(&hint);
  for (const auto& hint : map.hints())
    if (hint.role == "link") order.push_back(&hint);
  return nth < order.size() ? order[nth * 7 % order.size()] : nullptr;
}

TEST_P(HintsRealPages, HintMapAndClicks) {
  if (GetParam() == kAbsent) GTEST_SKIP() << test::kNoSavedPages;
  open("/pages/" + GetParam());
  for (const auto mode : {DrawMode::Image, DrawMode::Overlay}) {
    CaptureOptions options;
    options.mode = mode;
    auto captured = capture(tab(), options);
    ASSERT_TRUE(captured) << to_string(mode) << ": " << captured.error().describe();
    const auto& frame = captured->labelled;
    const auto pixels = decode_pixels(frame.bytes);
    EXPECT_TRUE(pixels) << to_string(mode) << ": the labelled frame does not decode: " << pixels.error().describe();
    EXPECT_EQ(pixels ? pixels->width : 0, frame.width) << to_string(mode);
    EXPECT_EQ(pixels ? pixels->height : 0, frame.height) << to_string(mode);
    // Every link a click at its centre would reach must have a hint (some saved pages show nothing
    // without their scripts, or lie under a transparent full-page image: then there may be none).
    auto reachable = tab().evaluate_in_page(
        "[...document.querySelectorAll('a[href]')].filter((a) => { const r = a.getBoundingClientRect();"
        " const x = r.left + r.width / 2, y = r.top + r.height / 2;"
        " if (r.width < 3 || r.height < 3 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;"
        " const e = document.elementFromPoint(x, y); return e && a.contains(e); }).length");
    ASSERT_TRUE(reachable) << reachable.error().describe();
    EXPECT_GE(captured->map.size(), reachable->get<std::size_t>()) << to_string(mode);
    EXPECT_EQ(captured->map.to_text().empty(), captured->map.empty());
    if (const char* dir = std::getenv("VIMGPT_HINTS_SAVE"); dir && mode == DrawMode::Overlay) {
      std::ofstream(std::string(dir) + "/" + GetParam() + ".png", std::ios::binary) << captured->labelled.bytes;
    }
  }
  auto url = tab().url();
  ASSERT_TRUE(url);
  const std::string start = *url;
  for (std::size_t nth = 0; nth < 3; ++nth) {
    auto map = find_hints(tab());
    ASSERT_TRUE(map) << map.error().describe();
    const Hint* hint = pick(*map, nth);
    if (!hint) break;
    auto clicked = click_label(tab(), *map, hint->label);
    EXPECT_TRUE(clicked) << hint->label << " " << hint->role << " \"" << hint->text
                         << "\": " << clicked.error().describe();
    (void)tab().settle(std::chrono::milliseconds{2000});
    auto now = tab().url();
    if (!now || *now != start) break;  // a click navigated away: the rest of this page's hints are gone
  }
}

INSTANTIATE_TEST_SUITE_P(Pages, HintsRealPages, ::testing::ValuesIn(page_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param.substr(0, param.param.find('.'));
                           for (auto& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace vimgpt::hints
