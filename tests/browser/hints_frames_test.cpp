// Hints inside iframes: a same-origin frame (reached from the main frame's script), a cross-origin frame
// that Chromium runs out of process (its own session) and a third site nested in it, with rects in the main
// viewport and trusted clicks landing inside each frame; a frame that navigates, and the navigation policy
// inside out-of-process frames.
#include <gtest/gtest.h>

#include "browser/hints_support.h"

namespace vimgpt::hints {
namespace {

using test_support::by_token;
using test_support::expect_hints;
using test_support::hint_for;
using test_support::HintsBrowserTest;

class HintsFrames : public HintsBrowserTest {
 protected:
  void SetUp() override {
    HintsBrowserTest::SetUp();
    open(frames_page());
  }

  // The frames page with the cross-origin frame showing `child` (a path under /fx/hints, query encoded).
  static std::string frames_page(const std::string& child = "frame-cross.html") {
    return "/fx/hints/frames.html?cross=" + port() + "&child=" + child;
  }
  static std::string port() { return std::to_string(cross_->port()); }

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

TEST_F(HintsFrames, EveryFrameStartsWithTheHintLibraryOnceAPassHasRun) {
  ASSERT_TRUE(find_hints(tab()));
  open(frames_page());
  const std::string check = "typeof globalThis.__vimgptHints";
  EXPECT_EQ(*tab().evaluate(check), "object");
  // A same-origin frame is read from the main frame's world: Chromium's isolated world spans both documents, and
  // Firefox's sandbox reaches the frame's document (each window has a sandbox of its own there).
  const std::string same = test::on_firefox()
                               ? "document.getElementById('same').contentDocument.body ? 'object' : 'none'"
                               : "document.getElementById('same').contentWindow.__vimgptHints ? 'object' : 'none'";
  EXPECT_EQ(*tab().evaluate(same), "object");
  ASSERT_FALSE(tab().child_frames().empty());
  for (const auto& frame : tab().child_frames()) {
    auto in_frame = tab().evaluate_in_frame(frame, check);
    ASSERT_TRUE(in_frame) << in_frame.error().describe();
    EXPECT_EQ(*in_frame, "object") << frame.url;
  }
}

// Out-of-process frames have their Page domain on (for the preloaded library): an alert in one still
// reaches the tab's dialog handling instead of waiting for an answer nobody gives.
TEST_F(HintsFrames, AnAlertInAnOutOfProcessFrameIsDismissedAndReported) {
  ASSERT_TRUE(find_hints(tab()));
  open(frames_page());
  (void)tab().take_dialogs();
  ASSERT_FALSE(tab().child_frames().empty());
  const auto frame = tab().child_frames().front();
  auto alerted = tab().evaluate_in_frame(frame, "alert('from the frame'); 'after'");
  ASSERT_TRUE(alerted) << alerted.error().describe();
  EXPECT_EQ(*alerted, "after");
  const auto dialogs = tab().take_dialogs();
  ASSERT_EQ(dialogs.size(), 1U);
  EXPECT_EQ(dialogs[0].message, "from the frame");
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

// Keys for a field in a cross-origin frame reach it (Firefox dispatches them in the frame's own context), and what
// they did is read in the frame's world: a field that took them, and one whose page refuses every key.
TEST_F(HintsFrames, KeysReachAFieldInACrossOriginFrameAndWhatTheyDidIsReadThere) {
  auto map = find_hints(tab());
  ASSERT_TRUE(map) << map.error().describe();
  for (const auto& [token, takes_keys] :
       std::vector<std::pair<std::string, bool>>{{"yes-cross-frame-input", true}, {"yes-cross-frame-locked", false}}) {
    auto clicked = click_label(tab(), *map, hint_for(*map, token).label);
    ASSERT_TRUE(clicked) << token << ": " << clicked.error().describe();
    auto target = start_typing(tab(), "abc");
    ASSERT_TRUE(target) << token << ": " << target.error().describe();
    EXPECT_TRUE(target->in_frame) << token;
    ASSERT_TRUE(target->frame.has_value()) << token << ": the frame holding the focus was not found";
    EXPECT_NE(target->frame->url.find("localhost"), std::string::npos) << target->frame->url;
    EXPECT_EQ(target->field.kind, FocusKind::Text) << token;
    const auto generation = tab().page_generation();
    auto typed = type_keys(tab(), *target, "abc");
    ASSERT_TRUE(typed) << token << ": " << typed.error().describe();
    auto effect = finish_typing(tab(), *target, generation);
    ASSERT_TRUE(effect) << token << ": " << effect.error().describe();
    EXPECT_EQ(effect->value_changed, takes_keys) << token;
    auto value = tab().evaluate_in_frame(*target->frame, "document.querySelector('[data-t=cross-frame-input]').value");
    ASSERT_TRUE(value && value->is_string());
    EXPECT_NE(value->get<std::string>().find("abc"), std::string::npos) << *value;  // from the first field's keys
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

TEST_F(HintsFrames, AFrameNestedInACrossOriginFrameIsHintedAndClickable) {
  // 127.0.0.1 > localhost > nested.test: three sites, three processes; the innermost is attached through
  // the middle frame's session.
  open(frames_page("frame-middle.html%3Finner%3D" + port()));
  ASSERT_TRUE(wait_for("load", "inner").is_object()) << "the nested frame did not load";
  auto map = find_hints(tab());
  ASSERT_TRUE(map) << map.error().describe();
  expect_hints(*map, {{"yes-middle-button", Reason::Rule}, {"yes-inner-button", Reason::Rule}}, {});
  const Hint& middle = hint_for(*map, "yes-middle-button");
  const Hint& inner = hint_for(*map, "yes-inner-button");
  EXPECT_NE(inner.frame_url.find("nested.test"), std::string::npos) << inner.frame_url;
  EXPECT_NE(inner.frame_session, middle.frame_session);
  // Inside the middle frame's box, below its button (the inner frame sits under it, 6 px margin + border).
  expect_inside(inner.rect, frame_rect("cross"));
  EXPECT_GT(inner.rect.y, middle.rect.y + middle.rect.height + 6);
  auto clicked = click_label(tab(), *map, inner.label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  const auto entry = wait_for("click", "inner-button");
  ASSERT_TRUE(entry.is_object()) << "the click did not reach the nested frame";
  EXPECT_TRUE(entry["trusted"].get<bool>());
}

TEST_F(HintsFrames, AFrameThatNavigatesIsHintedOnItsNewPage) {
  auto before = find_hints(tab());  // sets up the script's world in the frame's first document
  ASSERT_TRUE(before) << before.error().describe();
  ASSERT_EQ(by_token(*before).count("yes-cross-frame-button"), 1u);
  auto moved = tab().evaluate_in_page("document.getElementById('cross').src = 'http://localhost:" + port() +
                                      "/fx/hints/frame-inner.html', true");
  ASSERT_TRUE(moved) << moved.error().describe();
  ASSERT_TRUE(wait_for("load", "inner").is_object()) << "the frame did not load its new page";
  auto after = find_hints(tab());
  ASSERT_TRUE(after) << after.error().describe();
  expect_hints(*after, {{"yes-inner-button", Reason::Rule}, {"yes-forbidden-link", Reason::Rule}},
               {"yes-cross-frame-button"});
  auto clicked = click_label(tab(), *after, hint_for(*after, "yes-inner-button").label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  EXPECT_TRUE(wait_for("click", "inner-button").is_object());
}

TEST_F(HintsFrames, TheNavigationFilterHoldsInsideCrossOriginFrames) {
  browser::TabOptions options;
  options.navigation_filter = [](const std::string& url) -> std::optional<std::string> {
    if (url.find("forbidden") != std::string::npos) return "forbidden by the test";
    return std::nullopt;
  };
  auto guarded = browser::Tab::launch(test::loopback_only_launch(), options);
  ASSERT_TRUE(guarded) << guarded.error().describe();
  browser::Tab& t = **guarded;
  ASSERT_TRUE(t.navigate(server_->url(frames_page("frame-inner.html"))));
  const auto wait_in = [&t](const std::string& type, const std::string& token) {
    auto entry = t.evaluate_in_page("__waitFor('" + type + "', '" + token + "')");
    return entry && entry->is_string() ? wire::Json::parse(entry->get<std::string>()) : wire::Json();
  };
  ASSERT_TRUE(wait_in("frame-load", "1").is_object());
  auto map = find_hints(t);
  ASSERT_TRUE(map) << map.error().describe();
  // A link inside the out-of-process frame navigates that frame: the frame's own session must hold it.
  auto clicked = click_label(t, *map, hint_for(*map, "yes-forbidden-link").label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  ASSERT_TRUE(wait_in("frame-load", "2").is_object()) << "the frame did not finish its refused navigation";
  const auto blocked = t.take_blocked();
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_NE(blocked[0].url.find("/fx/hints/forbidden.html"), std::string::npos) << blocked[0].url;
  EXPECT_EQ(blocked[0].reason, "forbidden by the test");
  EXPECT_EQ(cross_->count("GET", "/fx/hints/forbidden.html"), 0);  // the request never left the browser
  if (test::on_firefox()) {
    // Chromium shows its error page in the frame; Firefox, which would leave the frame as it was, shows ours.
    bool shown = false;
    for (const auto& frame : t.child_frames()) {
      auto text = t.evaluate_in_frame(frame, "document.body.textContent");
      shown = shown || (text && text->get<std::string>().find("vimgpt refused") != std::string::npos);
    }
    EXPECT_TRUE(shown) << "the refused frame should say why it is empty";
  }
}

}  // namespace
}  // namespace vimgpt::hints
