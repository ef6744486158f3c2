// The replay module without a browser: finding a recorded element in a hint map, what a step meant, reading
// records back, the cache's keys and entries, and the Playwright export's text.
#include "replay/replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/text.h"

namespace vimgpt::replay {
namespace {

namespace fs = std::filesystem;

hints::Hint link(std::string label, std::string text, double x, double y) {
  hints::Hint hint;
  hint.label = std::move(label);
  hint.tag = "a";
  hint.role = "link";
  hint.text = std::move(text);
  hint.href = "http://127.0.0.1/reserve";
  hint.rect = {x, y, 100, 20};
  return hint;
}

Json signature_of(const hints::Hint& hint) {
  return hints::to_json(hint);
}

TEST(ReplayFind, FindsTheElementByWhatItIsNotByItsLabel) {
  const Json recorded = signature_of(link("A", "Reserve this book", 10, 300));
  const hints::HintMap today(1, {link("A", "Moby Dick", 10, 10), link("S", "Reserve this book", 10, 500)});
  auto found = find(today, recorded);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ((*found)->label, "S");  // moved, relabelled, still the same link
}

TEST(ReplayFind, ARenamedOrRetargetedElementIsNotFound) {
  const Json recorded = signature_of(link("A", "Reserve this book", 10, 300));
  auto renamed = find(hints::HintMap(1, {link("A", "Reserve a copy", 10, 300)}), recorded);
  ASSERT_FALSE(renamed);
  EXPECT_EQ(renamed.error().kind, ErrorKind::NotFound);
  EXPECT_EQ(renamed.error().message, "the link \"Reserve this book\" is not on the page");
  hints::Hint elsewhere = link("A", "Reserve this book", 10, 300);
  elsewhere.href = "http://127.0.0.1/other";
  EXPECT_FALSE(find(hints::HintMap(1, {elsewhere}), recorded));
}

TEST(ReplayFind, PositionOnlyBreaksTies) {
  const Json recorded = signature_of(link("A", "Edit", 10, 300));
  const hints::HintMap two(1, {link("A", "Edit", 10, 100), link("S", "Edit", 10, 320)});
  auto nearest = find(two, recorded);
  ASSERT_TRUE(nearest);
  EXPECT_EQ((*nearest)->label, "S");
  // As near as each other: a guess, so not found.
  auto tie = find(hints::HintMap(1, {link("A", "Edit", 10, 280), link("S", "Edit", 10, 320)}), recorded);
  ASSERT_FALSE(tie);
  EXPECT_NE(tie.error().message.find("2 elements match"), std::string::npos) << tie.error().message;
}

TEST(ReplayFind, AFieldsValueAndLabelAreNotItsIdentity) {
  hints::Hint field;
  field.label = "D";
  field.tag = "input";
  field.role = "textbox";
  field.input_type = "text";
  field.placeholder = "Your name";
  field.name = "reader";
  field.value = hints::FieldValue::Empty;
  const Json recorded = signature_of(field);
  field.label = "K";
  field.value = hints::FieldValue::Filled;
  const hints::HintMap filled(1, {field});
  auto found = find(filled, recorded);
  ASSERT_TRUE(found);
  EXPECT_EQ((*found)->label, "K");
  field.name = "other";
  EXPECT_FALSE(find(hints::HintMap(1, {field}), recorded));
}

TEST(ReplayIntention, SaysWhatTheStepMeant) {
  const Json reserve = signature_of(link("A", "Reserve this book", 0, 0));
  EXPECT_EQ(intention({{"click", "A"}}, reserve), "click the link \"Reserve this book\"");
  EXPECT_EQ(intention({{"click", "A"}, {"type", "dune"}}, reserve),
            "click the link \"Reserve this book\" and type \"dune\"");
  EXPECT_EQ(intention({{"select", "A"}, {"option", "Large"}}, reserve),
            "choose \"Large\" in the link \"Reserve this book\"");
  EXPECT_EQ(intention({{"navigate", "https://example.com/"}}, Json()), "navigate to https://example.com/");
  EXPECT_EQ(intention({{"done", "42"}}, Json()), "finish with the answer \"42\"");
  hints::Hint icon = link("A", "", 0, 0);
  icon.role = "generic";
  icon.tag = "span";
  icon.href.clear();
  EXPECT_EQ(intention({{"click", "A"}}, signature_of(icon)), "click the span element");
}

TEST(ReplayDigest, IsStableAcrossBuilds) {
  // 64-bit FNV-1a's published values: a cache key must mean the same on every machine.
  EXPECT_EQ(content_digest(""), "cbf29ce484222325");
  EXPECT_EQ(content_digest("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(cache_key("find x", "https://a.test/", 1080, 720), cache_key("find x", "https://a.test/", 1080, 720));
  EXPECT_NE(cache_key("find x", "https://a.test/", 1080, 720), cache_key("find x", "https://a.test/", 1280, 720));
  EXPECT_NE(cache_key("find x", "https://a.test/", 1080, 720), cache_key("find y", "https://a.test/", 1080, 720));
  EXPECT_NE(cache_key("find x", "https://a.test/", 1080, 720), cache_key("find x", "https://b.test/", 1080, 720));
}

// A record folder written by hand, as --record writes one.
class ReplayRecords : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vimgpt-replay-unit-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path write_record(const std::string& name, const std::vector<Json>& steps, const std::string& outcome = "done") {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "run.json") << Json{
        {"objective", "reserve Dune"},
        {"start_url", "http://127.0.0.1:9/"},
        {"outcome", outcome},
        {"answer", "Confirmation 4242"}}.dump();
    std::ofstream lines(dir / "steps.jsonl");
    for (const auto& step : steps) lines << step.dump() << "\n";
    return dir;
  }
  // The Playwright script of a run recorded as `steps`; empty, with the test failed, when there is none.
  std::string playwright_script(const std::vector<Json>& steps) {
    auto recording = load(write_record("run", steps).string());
    if (!recording) {
      ADD_FAILURE() << recording.error().message;
      return {};
    }
    auto script = to_playwright(*recording);
    if (!script) ADD_FAILURE() << script.error().message;
    return script ? *script : std::string();
  }
  // An element with nothing to find it by but where it was.
  static hints::Hint bare_box() {
    hints::Hint bare;
    bare.tag = "div";
    bare.role = "generic";
    bare.rect = {100, 200, 40, 20};
    return bare;
  }
  static Json step(int number, Json action, Json signature = Json(), bool ok = true) {
    Json line = {{"step", number},
                 {"url", "http://127.0.0.1:9/"},
                 {"title", "Library"},
                 {"action", action},
                 {"ok", ok},
                 {"result", "ok"},
                 {"frames", Json::array()},
                 {"viewport", {1080, 720}},
                 {"frame_size", {768, 512}}};
    if (!signature.is_null()) line["signature"] = signature;
    if (action.contains("done")) line["page_digest"] = content_digest("Reserved.");
    return line;
  }

  fs::path root_;
};

TEST_F(ReplayRecords, LoadsTheStepsThatDidSomething) {
  const Json reserve = signature_of(link("A", "Reserve this book", 10, 300));
  const fs::path dir =
      write_record("run", {step(1, {{"click", "A"}}, reserve), step(2, {{"click", "ZZ"}}, Json(), false),
                           step(3, {{"scroll", "down"}}), step(4, {{"done", "Confirmation 4242"}})});
  auto recording = load(dir.string());
  ASSERT_TRUE(recording) << recording.error().message;
  ASSERT_EQ(recording->steps.size(), 3U);  // the failed step changed nothing
  EXPECT_EQ(recording->steps[0].signature, reserve);
  EXPECT_EQ(recording->steps[1].step, 3);
  EXPECT_EQ(recording->viewport_width, 1080);
  EXPECT_EQ(recording->viewport_height, 720);
  EXPECT_EQ(recording->objective, "reserve Dune");
}

TEST_F(ReplayRecords, RefusesWhatCannotBeReplayed) {
  auto unsigned_click = load(write_record("old", {step(1, {{"click", "A"}}), step(2, {{"done", true}})}).string());
  ASSERT_FALSE(unsigned_click);
  EXPECT_EQ(unsigned_click.error().kind, ErrorKind::Refused);
  EXPECT_NE(unsigned_click.error().message.find("step 1"), std::string::npos);
  EXPECT_NE(unsigned_click.error().message.find("no element signature"), std::string::npos);
  auto unfinished = load(write_record("stuck", {step(1, {{"scroll", "down"}})}, "stuck").string());
  ASSERT_FALSE(unfinished);
  EXPECT_NE(unfinished.error().message.find("ended \"stuck\""), std::string::npos);
  auto missing = load((root_ / "nothing").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
}

// A record edited by hand, or from another machine: a field of another type than vimgpt writes is an error that says
// so, for each of the fields the loader reads (before 2026-12-05 it threw, and `vimgpt replay` ended on it).
TEST_F(ReplayRecords, AFieldOfAnotherTypeIsAnErrorNotAThrow) {
  const Json reserve = signature_of(link("A", "Reserve this book", 10, 300));
  const std::vector<std::pair<std::string, Json>> edits = {{"step", "one"},
                                                           {"url", 9},
                                                           {"title", Json::array()},
                                                           {"viewport", {"wide", 720}},
                                                           {"frame_size", {"x", 512}},
                                                           {"page_digest", 4},
                                                           {"result", false},
                                                           {"ok", "yes"}};
  for (const auto& [key, value] : edits) {
    Json first = step(1, {{"click", "A"}}, reserve);
    first[key] = value;
    const fs::path dir = write_record("edited-" + key, {first, step(2, {{"done", "Confirmation 4242"}})});
    const auto recording = load(dir.string());
    ASSERT_FALSE(recording) << key;
    EXPECT_EQ(recording.error().kind, ErrorKind::Parse) << key;
    EXPECT_NE(recording.error().message.find("another type than vimgpt writes"), std::string::npos)
        << key << ": " << recording.error().message;
  }
  const fs::path dir = write_record("objective", {step(1, {{"done", "Confirmation 4242"}})});
  std::ofstream(dir / "run.json") << Json{{"objective", 42}, {"outcome", "done"}}.dump();
  EXPECT_FALSE(load(dir.string()));
}

TEST_F(ReplayRecords, StoringReplacesTheEntryWhole) {
  const Json done = step(1, {{"done", "Confirmation 4242"}});
  const std::string cache = (root_ / "cache").string();
  const std::string key = cache_key("reserve Dune", "http://127.0.0.1:9/", 1080, 720);
  EXPECT_FALSE(cached_run(cache, key));
  // A run recorded elsewhere (--record) is copied in and stays where it was.
  const fs::path mine = write_record("mine", {done});
  ASSERT_TRUE(store(cache, key, mine.string()));
  EXPECT_TRUE(fs::exists(mine / "run.json"));
  ASSERT_TRUE(cached_run(cache, key));
  EXPECT_EQ(cached_run(cache, key)->dir, (fs::path(cache) / key).string());
  // A staged run is moved in; the old entry is gone, nothing else is left behind.
  auto staged = staging_dir(cache);
  ASSERT_TRUE(staged);
  fs::copy(mine, *staged, fs::copy_options::recursive);
  std::ofstream(fs::path(*staged) / "marker") << "new";
  ASSERT_TRUE(store(cache, key, *staged));
  EXPECT_TRUE(fs::exists(fs::path(cache) / key / "marker"));
  EXPECT_FALSE(fs::exists(*staged));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(cache)) ++entries;
  EXPECT_EQ(entries, 1U);
}

TEST_F(ReplayRecords, ThePlaywrightScriptUsesRoleAndPlaceholderLocators) {
  hints::Hint search;
  search.tag = "input";
  search.role = "textbox";
  search.input_type = "text";
  search.placeholder = "Search the catalogue";
  search.value = hints::FieldValue::Empty;
  hints::Hint size;
  size.tag = "select";
  size.role = "combobox";
  size.text = "Size";
  size.value = hints::FieldValue::Filled;
  Json typed = step(1, {{"click", "A"}, {"type", "dune <secret:PIN>"}}, signature_of(search));
  typed["result"] = "clicked textbox \"\", then typed 10 characters and pressed Enter";
  Json chosen = step(2, {{"select", "S"}, {"option", "lar"}}, signature_of(size));
  chosen["result"] = "selected \"Large\"";
  const std::string script = playwright_script(
      {typed, chosen, step(3, {{"click", "D"}}, signature_of(bare_box())), step(4, {{"click_at", {384, 256}}}),
       step(5, {{"dialog", "accept"}, {"dialog_text", "Q3 report"}}), step(6, {{"done", "ok"}})});
  ASSERT_FALSE(script.empty());
  const auto has = [&](const std::string& text) { return script.find(text) != std::string::npos; };
  EXPECT_TRUE(has("import { test, expect, type Page } from '@playwright/test';")) << script;
  EXPECT_TRUE(has("test.use({ viewport: { width: 1080, height: 720 } });")) << script;
  EXPECT_TRUE(has("await page.goto(\"http://127.0.0.1:9/\");")) << script;
  EXPECT_TRUE(has("await page.getByPlaceholder(\"Search the catalogue\", { exact: true }).click();")) << script;
  EXPECT_TRUE(has("await page.keyboard.type(\"dune \" + secret(\"PIN\"));")) << script;
  EXPECT_TRUE(has("await page.keyboard.press('Enter');")) << script;
  // The option the run chose, not the text the model wrote.
  EXPECT_TRUE(has("getByRole(\"combobox\", { name: \"Size\", exact: true }).selectOption({ label: \"Large\" });"))
      << script;
  EXPECT_TRUE(has("await page.mouse.click(120, 210);  // nothing to find it by but where it was")) << script;
  // A point in the 768-wide frame the model saw, in the 1080-wide viewport.
  EXPECT_TRUE(has("await page.mouse.click(540, 360);")) << script;
  // The next dialog answered as the run answered it (Playwright would dismiss it).
  EXPECT_TRUE(has("page.once('dialog', (dialog) => dialog.accept(\"Q3 report\"));")) << script;
  EXPECT_TRUE(has("await expect(page).toHaveURL(\"http://127.0.0.1:9/\");")) << script;
  EXPECT_TRUE(has("await expect(page).toHaveTitle(\"Library\");")) << script;
}

// A double, triple or right click and a hover are made by Playwright as the run made them: on the element a label
// named, by its locator (or where it was), and at the frame's point when the model gave a point (a computer tool's,
// an open family's), scaled to the viewport, never at the page's corner.
TEST_F(ReplayRecords, ThePlaywrightScriptClicksAndPointsWhereTheRunDid) {
  const std::string script = playwright_script(
      {step(1, {{"triple_click", "A"}}, signature_of(link("A", "Terms", 10, 300))),
       step(2, {{"right_click", "D"}}, signature_of(bare_box())), step(3, {{"double_click", {384, 256}}}),
       step(4, {{"triple_click", {384, 256}}}), step(5, {{"hover", {192, 128}}}), step(6, {{"done", "ok"}})});
  ASSERT_FALSE(script.empty());
  const auto has = [&](const std::string& text) { return script.find(text) != std::string::npos; };
  EXPECT_TRUE(has(".click({ clickCount: 3 });")) << script;
  EXPECT_TRUE(has("await page.mouse.click(120, 210, { button: 'right' });  // nothing to find it by but where it was"))
      << script;
  EXPECT_TRUE(has("await page.mouse.dblclick(540, 360);")) << script;
  EXPECT_TRUE(has("await page.mouse.click(540, 360, { clickCount: 3 });")) << script;
  EXPECT_TRUE(has("await page.mouse.move(270, 180);")) << script;
  EXPECT_FALSE(has("(0, 0")) << script;
}

}  // namespace
}  // namespace vimgpt::replay
