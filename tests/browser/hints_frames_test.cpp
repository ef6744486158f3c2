// Hints inside iframes: a same-origin frame (reached from the main frame's script) and a cross-origin
// frame that Chromium runs out of process (its own session), with rects in the main viewport and trusted
// clicks landing inside each frame.
#include <gtest/gtest.h>

#include "browser/hints_support.h"

namespace vimgpt::hints {
namespace {

using test_support::expect_hints;
using test_support::hint_for;
using test_support::HintsBrowserTest;

class HintsFrames : public HintsBrowserTest {
 protected:
  void SetUp() override {
    HintsBrowserTest::SetUp();
    open("/fx/hints/frames.html?cross=" + std::to_string(cross_->port()));
  }

  static Rect frame_rect(const std::string& id) {
    auto box =
        tab().evaluate_in_page("(() => { const e = document.getElementById('" + id +
                               "'); const r = e.getBoundingClientRect();"
                               " return [r.x + e.clientLeft, r.y + e.clientTop, e.clientWidth, e.clientHeight]; })()");
    EXPECT_TRUE(box) << box.error().describe();
    return box ? Rect{(*box)[0], (*box)[1], (*box)[2], (*box)[3]} : Rect{};
  }
};

void expect_inside(const Rect& inner, const Rect& outer) {
  EXPECT_GE(inner.x, outer.x - 0.5);
  EXPECT_GE(inner.y, outer.y - 0.5);
  EXPECT_LE(inner.x + inner.width, outer.x + outer.width + 0.5);
  EXPECT_LE(inner.y + inner.height, outer.y + outer.height + 0.5);
}

TEST_F(HintsFrames, CrossOriginFrameRunsOutOfProcess) {
  bool found = false;
  for (const auto& frame : tab().child_frames()) found = found || frame.url.find("localhost") != std::string::npos;
  EXPECT_TRUE(found) << "the localhost frame should have its own session (out of process)";
}

TEST_F(HintsFrames, HintsEveryFrameInMainViewportCoordinates) {
  auto map = find_hints(tab());
  ASSERT_TRUE(map) << map.error().describe();
  expect_hints(*map,
               {{"yes-top-link", Reason::Rule},
                {"yes-same-frame-button", Reason::Rule},
                {"yes-cross-frame-button", Reason::Rule},
                {"yes-cross-frame-input", Reason::Rule}},
               {"no-frame-below-fold", "no-cross-frame-disabled"});
  const Hint& same = hint_for(*map, "yes-same-frame-button");
  const Hint& cross = hint_for(*map, "yes-cross-frame-button");
  EXPECT_TRUE(same.frame_session.empty());
  EXPECT_FALSE(cross.frame_session.empty());
  EXPECT_NE(cross.frame_url.find("localhost"), std::string::npos);
  expect_inside(same.rect, frame_rect("same"));
  expect_inside(cross.rect, frame_rect("cross"));
  // The frame's button sits at the frame's top-left (body margin 4px), not at the main page's.
  EXPECT_NEAR(cross.rect.x, frame_rect("cross").x + 4, 2.0);
  // Cross-origin hints come after the main document's, like Vimium's frames.
  EXPECT_EQ(&map->hints().back(), &hint_for(*map, "yes-cross-frame-input"));
  EXPECT_NE(map->to_json().back().value("frame", "").find("localhost"), std::string::npos);
}

TEST_F(HintsFrames, ClicksLandInsideEachFrameTrusted) {
  auto map = find_hints(tab());
  ASSERT_TRUE(map) << map.error().describe();
  for (const auto& [token, t] :
       std::vector<std::pair<std::string, std::string>>{{"yes-top-link", "top-link"},
                                                        {"yes-same-frame-button", "same-frame-button"},
                                                        {"yes-cross-frame-button", "cross-frame-button"},
                                                        {"yes-cross-frame-input", "cross-frame-input"}}) {
    auto clicked = click_label(tab(), *map, hint_for(*map, token).label);
    ASSERT_TRUE(clicked) << token << ": " << clicked.error().describe();
    const auto entry = wait_for("click", t);
    ASSERT_TRUE(entry.is_object()) << "no click reached " << t;
    EXPECT_TRUE(entry["trusted"].get<bool>()) << t;
  }
}

TEST_F(HintsFrames, OverlayAndImageModesLabelFrameHints) {
  for (const auto mode : {DrawMode::Overlay, DrawMode::Image}) {
    CaptureOptions options;
    options.mode = mode;
    auto captured = capture(tab(), options);
    ASSERT_TRUE(captured) << captured.error().describe();
    EXPECT_GE(captured->map.size(), 4u);
    EXPECT_GT(captured->labelled.bytes.size(), 1000u);
  }
}

}  // namespace
}  // namespace vimgpt::hints
