// A person's hands beyond click and type, through the real vimgpt binary and a real Chromium, on loopback pages
// built for each: a hover menu, HTML5 drag and drop, a list sorted on mouse events, a slider, a signature pad, a
// list that scrolls inside the page, words selected and copied, a paragraph triple-clicked, the page's own context
// menu, a cell edited on double-click, and a whole form in one {"actions": [...]} reply. The pages report what they saw
// to /event.
#include <algorithm>
#include <fstream>

#include "e2e/hands_world.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::CliRun;
using test::label_in_prompt;
using test::read_steps;
using test::run_vimgpt;

using AgentHands = test::HandsWorld;
using test::Reply;

TEST_F(AgentHands, AHoverMenuOpensAndItsItemIsClicked) {
  // The submenu's links have no label until the pointer rests on Products: step 2 can name Pricing only then.
  const CliRun run_ =
      run("menu.html", {with_labels(R"({"hover": "{{Products}}"})"), with_labels(R"({"click": "{{Pricing}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_NE(result_of(0).find("the pointer rests on"), std::string::npos) << result_of(0);
  EXPECT_EQ(site_->count("GET", "/fx/hands/pricing.html"), 1);
  EXPECT_EQ(read_steps(record())[2]["title"], "Pricing");
}

TEST_F(AgentHands, ACardIsDraggedOntoAnotherColumnByHtml5DragAndDrop) {
  // Dropped on the Done column's own button: the drop goes to the column it is in.
  const CliRun run_ = run("board.html", {with_labels(R"({"drag": "{{Write the report}}", "to": "{{Add to Done}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("moved=Write the report&to=done")) << testing::PrintToString(events());
  EXPECT_NE(result_of(0).find("the page took it as a drag and drop"), std::string::npos) << result_of(0);
}

TEST_F(AgentHands, AListSortedOnMouseEventsIsReordered) {
  const CliRun run_ = run("sortable.html", {with_labels(R"({"drag": "{{Apples}}", "to": "{{Dates}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  // Dropped on the middle of Dates: before it, as the list's own rule puts it.
  EXPECT_TRUE(saw("order=bcad")) << testing::PrintToString(events());
  EXPECT_NE(result_of(0).find("with the mouse button held"), std::string::npos) << result_of(0);
}

TEST_F(AgentHands, ASliderIsDraggedToAPointOfTheFrame) {
  // The slider is 400 CSS px wide from x=~70: in the 768-px frame of a 1080-px viewport, its right end is ~330.
  // The handle sits at 10%; dragged to 80% of the track (frame pixels computed from the recorded hint rect).
  const CliRun run_ = run("slider.html", {[](const std::string& prompt) {
                            return R"({"drag": ")" + label_in_prompt(prompt, "Volume") + R"(", "to": [300, 16]})";
                          }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  const auto all = events();
  ASSERT_FALSE(all.empty()) << result_of(0);
  const int volume = std::stoi(all.back().substr(std::string("volume=").size()));
  EXPECT_GT(volume, 50) << all.back();
}

TEST_F(AgentHands, ASignatureIsDrawnOnACanvasBetweenTwoPoints) {
  const CliRun run_ =
      run("signature.html", {[](const std::string&) { return R"({"drag": [40, 90], "to": [250, 140]})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  const auto all = events();
  ASSERT_EQ(all.size(), 1U) << result_of(0);
  std::smatch match;
  ASSERT_TRUE(std::regex_search(all[0], match, std::regex("points=(\\d+)"))) << all[0];
  EXPECT_GE(std::stoi(match[1]), 5) << all[0];  // moved in steps, with the button down
  ASSERT_TRUE(std::regex_search(all[0], match, std::regex("inked=(\\d+)"))) << all[0];
  EXPECT_GT(std::stoi(match[1]), 50) << all[0];  // and ink on the canvas
}

TEST_F(AgentHands, AListScrollsInsideThePageUntilItsItemShows) {
  // Item 35 is below the fold of the list: it gets a label only once the list has scrolled (the page does not).
  std::vector<Reply> replies;
  for (int i = 0; i < 6; ++i) {
    replies.push_back([](const std::string& prompt) {
      if (label_in_prompt(prompt, "Item 35\"") != "NOT-FOUND") {
        return R"({"click": ")" + label_in_prompt(prompt, "Item 35\"") + R"("})";
      }
      return R"({"scroll": "down", "in": ")" + label_in_prompt(prompt, "Items") + R"("})";
    });
  }
  const CliRun run_ = run("list.html", replies);
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("picked=35")) << testing::PrintToString(events()) << result_of(0);
  EXPECT_NE(result_of(0).find("scrolled"), std::string::npos) << result_of(0);
  EXPECT_NE(result_of(0).find(" down by "), std::string::npos) << result_of(0);
}

TEST_F(AgentHands, AnElementThatDoesNotScrollSaysSoAndTheRunGoesOn) {
  const CliRun run_ = run("list.html", {with_labels(R"({"scroll": "down", "in": "{{Item 1\"}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_NE(result_of(0).find("does not scroll"), std::string::npos) << result_of(0);
}

TEST_F(AgentHands, WordsAreSelectedCopiedAndPastedIntoAField) {
  const CliRun run_ = run("copy.html", {[](const std::string&) { return R"({"select_text": "TANGERINE-42"})"; },
                                        [](const std::string&) { return R"({"key": "Control+C"})"; },
                                        with_labels(R"({"click": "{{Code}}"})"),
                                        [](const std::string&) { return R"({"key": "Control+V"})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("selected=TANGERINE-42")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("typed=TANGERINE-42")) << testing::PrintToString(events());
  EXPECT_NE(result_of(0).find("selected \"TANGERINE-42\""), std::string::npos) << result_of(0);
  EXPECT_NE(result_of(1).find("pressed Control+C"), std::string::npos) << result_of(1);
}

TEST_F(AgentHands, WordsThatAreNotOnThePageAreAnErrorTheModelReads) {
  const CliRun run_ = run("copy.html", {[](const std::string&) { return R"({"select_text": "GRAPEFRUIT"})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_NE(result_of(0).find("are not on the page"), std::string::npos) << result_of(0);
  EXPECT_NE(model_.requests().at(1).text.find("GRAPEFRUIT"), std::string::npos);  // in the history it reads
}

TEST_F(AgentHands, ThePagesOwnContextMenuOpensOnARightClick) {
  const CliRun run_ = run(
      "context.html", {with_labels(R"({"right_click": "{{report.pdf}}"})"), with_labels(R"({"click": "{{Rename}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("context=report.pdf")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("chose=rename")) << testing::PrintToString(events());
}

// A computer tool's triple click (Anthropic's, Gemini's) selects the whole paragraph at its point, as a person's
// does; a double click there selects one word.
TEST_F(AgentHands, ATripleClickSelectsTheWholeParagraph) {
  const CliRun run_ = run("copy.html", {[](const std::string&) { return R"({"triple_click": [40, 18]})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  const auto all = events();
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const std::string& event) {
    return event.starts_with("selected=Your code for today is TANGERINE-42, valid until midnight.");
  })) << testing::PrintToString(all);
  EXPECT_NE(result_of(0).find("triple-clicked at (40, 18)"), std::string::npos) << result_of(0);
}

TEST_F(AgentHands, ACellIsEditedAfterADoubleClickWithKeyCombinations) {
  // Double-click opens the editor with the value selected; Control+A and typing replace it; Enter keeps it.
  const CliRun run_ = run("cell.html", {with_labels(R"({"double_click": "{{Count of Pens}}"})"),
                                        [](const std::string&) { return R"({"key": "Control+A"})"; },
                                        [](const std::string&) { return R"({"type": "42", "enter": true})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("count=42")) << testing::PrintToString(events()) << result_of(0) << result_of(1) << result_of(2);
}

TEST_F(AgentHands, AThreeFieldFormIsFilledByOneRepliesActionsAndSubmittedOnce) {
  const CliRun run_ = run("signup.html", {with_labels(R"({"actions": [
      {"click": "{{First name}}", "type": "Ada"},
      {"click": "{{Last name}}", "type": "Lovelace"},
      {"click": "{{Email}}", "type": "ada@example.test"},
      {"click": "{{Send}}"}]})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  ASSERT_EQ(site_->count("POST", "/signup"), 1);
  for (const auto& request : site_->requests()) {
    if (request.path == "/signup") {
      EXPECT_EQ(request.body, "first=Ada&last=Lovelace&email=ada%40example.test");
    }
  }
  EXPECT_EQ(model_.request_count(), 2U);  // one reply filled the form; the next saw the page after it
  const std::string result = result_of(0);
  EXPECT_NE(result.find("4 actions:"), std::string::npos) << result;
  EXPECT_NE(result.find("1. click "), std::string::npos) << result;
  // The last field's Enter sent the form: the click on Send was not done, and the result says why.
  EXPECT_NE(result.find("4. click "), std::string::npos) << result;
  EXPECT_NE(result.find("not done: the page navigated after action 3"), std::string::npos) << result;
  EXPECT_EQ(read_steps(record())[1]["title"], "Thanks");
}

TEST_F(AgentHands, AListStopsAtTheFirstActionThatFailsAndTooLongAListIsDoneUpToItsLimit) {
  const CliRun run_ =
      run("signup.html", {with_labels(R"({"actions": [{"click": "{{First name}}", "type": "Ada"}, {"click": "ZZ"},
                                          {"click": "{{Email}}", "type": "x@example.test"}]})"),
                          [](const std::string&) {
                            return R"({"actions": [{"key": "Tab"}, {"key": "Tab"}, {"key": "Tab"}, {"key": "Tab"},
                                        {"key": "Tab"}, {"key": "Shift+Tab"}]})";
                          }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  const std::string first = result_of(0);
  EXPECT_NE(first.find("2. click ZZ: not done: no hint labelled \"ZZ\""), std::string::npos) << first;
  EXPECT_NE(first.find("3. click "), std::string::npos) << first;
  EXPECT_NE(first.find("not done: action 2 failed"), std::string::npos) << first;
  // Six actions where a reply holds five: the first five are done, the sixth is named as not done.
  const std::string second = result_of(1);
  EXPECT_NE(second.find("6 actions:"), std::string::npos) << second;
  EXPECT_NE(second.find("5. press Tab: done"), std::string::npos) << second;
  EXPECT_NE(second.find("6. press Shift+Tab: not done: a reply holds at most 5 actions"), std::string::npos) << second;
  EXPECT_EQ(site_->count("POST", "/signup"), 0);
}

TEST_F(AgentHands, APointOutsideTheFrameIsAnErrorTheModelReads) {
  const CliRun run_ =
      run("signature.html", {[](const std::string&) { return R"({"drag": [40, 90], "to": [5000, 90]})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_NE(result_of(0).find("is outside the"), std::string::npos) << result_of(0);
  EXPECT_TRUE(events().empty());
}

// The new actions are recorded with a signature for every label they name, replayed with no model on the
// elements those find, and exported as a Playwright script that does the same in Playwright.
class HandsReplay : public AgentHands {
 protected:
  // Replays the record with no model and exports it; Playwright runs the export.
  void replay_and_export(const std::string& must_contain) {
    const CliRun replayed =
        run_vimgpt({"replay", record().string(), "--no-heal", "--record", (scratch_ / "again").string()});
    EXPECT_EQ(replayed.exit_code, 0) << replayed.err;
    EXPECT_EQ(model_.request_count(), answered_) << "the replay asked the model";
    const fs::path spec = scratch_ / "playwright" / "task.spec.ts";
    fs::create_directories(spec.parent_path());
    const CliRun exported = run_vimgpt({"export", record().string(), "--to", "playwright", "-o", spec.string()});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    std::ifstream script(spec);
    const std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(must_contain), std::string::npos) << text;
    const auto played = test::run_playwright(spec);
    EXPECT_EQ(played.status, 0) << played.output << text;
  }
};

TEST_F(HandsReplay, ADragToAnElementKeepsBothSignaturesAndIsDoneAgainByReplayAndByPlaywright) {
  const CliRun first = run("board.html", {with_labels(R"({"drag": "{{Write the report}}", "to": "{{Add to Done}}"})")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps[0]["signatures"].size(), 2U) << steps[0].dump();
  EXPECT_EQ(steps[0]["signatures"][1]["text"], "Add to Done");
  replay_and_export(".dragTo(");
  int moved = 0;
  for (const auto& event : events()) moved += event == "moved=Write the report&to=done" ? 1 : 0;
  EXPECT_EQ(moved, 3) << testing::PrintToString(events());  // the run, the replay, Playwright
}

TEST_F(HandsReplay, AFormFilledByOneActionsListIsFilledAgainByReplayAndByPlaywright) {
  const CliRun first = run("signup.html", {with_labels(R"({"actions": [{"click": "{{First name}}", "type": "Ada"},
      {"click": "{{Last name}}", "type": "Lovelace"}, {"click": "{{Email}}", "type": "ada@example.test"}]})")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(read_steps(record())[0]["signatures"].size(), 3U);
  replay_and_export("page.keyboard.press('Enter')");
  EXPECT_EQ(site_->count("POST", "/signup"), 3);
}

TEST_F(HandsReplay, ADoubleClickAndAKeyCombinationAreDoneAgainByReplayAndByPlaywright) {
  const CliRun first = run("cell.html", {with_labels(R"({"double_click": "{{Count of Pens}}"})"),
                                         [](const std::string&) { return R"({"key": "Control+A"})"; },
                                         [](const std::string&) { return R"({"type": "42", "enter": true})"; }});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  replay_and_export(".dblclick();");
  int kept = 0;
  for (const auto& event : events()) kept += event == "count=42" ? 1 : 0;
  EXPECT_EQ(kept, 3) << testing::PrintToString(events());
}

}  // namespace
}  // namespace vimgpt
