// Widgets people meet every day, through the real vimgpt binary and a real browser, on loopback pages built for each
// (tests/fixtures/site/widgets; each reports what it saw to /event): date and time fields, a one-time-code row, a
// terminal that reads keys on the document, a read-only field that opens a calendar, rows, buttons and a custom select
// whose click handlers are delegated from their parents, and a box scrolled to its end. Typing is a key press a
// character, and a step whose typing changed nothing says so.
#include <regex>

#include "e2e/hands_world.h"

namespace vimgpt {
namespace {

using test::CliRun;
using test::read_steps;

class AgentWidgets : public test::HandsWorld {
 protected:
  AgentWidgets() : HandsWorld("widgets") {}

  [[nodiscard]] bool step_ok(std::size_t step) const {
    const auto steps = read_steps(record());
    return step < steps.size() && steps[step].value("ok", false);
  }

  // Why the first step's hint map labelled the element whose name holds `text` ("rule", "opens", "delegated"...), or
  // "none" when it has no label.
  [[nodiscard]] std::string reason_for(const std::string& text) const {
    const auto steps = read_steps(record());
    if (steps.empty()) return "no step";
    for (const auto& hint : steps[0]["hints"])
      if (hint.value("text", "").find(text) != std::string::npos) return hint.value("reason", "rule");
    return "none";
  }
};

TEST_F(AgentWidgets, DateAndTimeFieldsAreFilledByTypingAsTheFieldShowsThem) {
  // Each field as the model would write it: the field's own value format, or as the field shows it (mm/dd/yyyy here).
  const CliRun run_ = run(
      "dates.html", {with_labels(R"({"actions": [{"click": "{{Arrival date}}", "type": "2011-12-15", "enter": false},
                                                 {"click": "{{Arrival time}}", "type": "1:45 PM", "enter": false},
                                                 {"click": "{{Meeting}}", "type": "2012-01-02T09:30", "enter": false}]})"),
                     with_labels(R"({"click": "{{Arrival date}}", "type": "02/29/2012", "enter": false})"),
                     // The digits alone, as a person types them into the field (en-US: mm dd yyyy).
                     with_labels(R"({"click": "{{Arrival date}}", "type": "12152011", "enter": false})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("field=arrival&keyed=yes&value=2011-12-15")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("field=time&keyed=yes&value=13:45")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("field=meeting&keyed=yes&value=2012-01-02T09:30")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("field=arrival&keyed=yes&value=2012-02-29")) << testing::PrintToString(events());
  const std::string first = result_of(0);
  EXPECT_NE(first.find("the date field now holds 2011-12-15"), std::string::npos) << first;
  EXPECT_NE(first.find("the time field now holds 13:45"), std::string::npos) << first;
  EXPECT_NE(first.find("the datetime-local field now holds 2012-01-02T09:30"), std::string::npos) << first;
  EXPECT_NE(result_of(1).find("the date field now holds 2012-02-29"), std::string::npos) << result_of(1);
  EXPECT_NE(result_of(2).find("the date field now holds 2011-12-15"), std::string::npos) << result_of(2);
  EXPECT_TRUE(step_ok(2)) << result_of(2);
  // Filled by its keys: not by the value set as a script sets it, which the step would say.
  EXPECT_EQ(result_of(2).find("did not take the keys"), std::string::npos) << result_of(2);
}

TEST_F(AgentWidgets, AMonthFieldIsFilledAndADateThatIsNoneSaysSo) {
  const CliRun run_ =
      run("dates.html", {with_labels(R"({"click": "{{Card expiry}}", "type": "2027-04", "enter": false})"),
                         with_labels(R"({"click": "{{Arrival date}}", "type": "next friday", "enter": false})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("field=expiry&keyed=yes&value=2027-04")) << testing::PrintToString(events());
  // Words are typed as they are; the field takes none of them, and the step says so instead of "ok".
  EXPECT_FALSE(step_ok(1));
  EXPECT_NE(result_of(1).find("the date field is still empty"), std::string::npos) << result_of(1);
}

TEST_F(AgentWidgets, AOneTimeCodeRowThatMovesOnKeyupGetsEveryDigit) {
  const CliRun run_ = run("otp.html", {with_labels(R"({"click": "{{Digit 1}}", "type": "428913", "enter": false})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("code=428913")) << testing::PrintToString(events());
  EXPECT_TRUE(step_ok(0)) << result_of(0);
}

TEST_F(AgentWidgets, KeysReachATerminalThatReadsThemOnTheDocument) {
  const CliRun run_ = run("terminal.html", {[](const std::string&) { return R"({"type": "ls -l", "enter": true})"; }});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("command=ls -l")) << testing::PrintToString(events());
  EXPECT_NE(result_of(0).find("typed 5 characters to the page (nothing had the focus) and pressed Enter"),
            std::string::npos)
      << result_of(0);
  EXPECT_TRUE(step_ok(0)) << result_of(0);
}

TEST_F(AgentWidgets, TypingThatChangesNothingIsNotOk) {
  // Nothing has the focus and nothing on this page reads keys: the keys go nowhere, and the step says so.
  const CliRun run_ =
      run("picker.html", {[](const std::string&) { return R"({"type": "hello", "enter": false})"; },
                          with_labels(R"({"click": "{{Departure date}}", "type": "15 December", "enter": false})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_FALSE(step_ok(0));
  EXPECT_NE(result_of(0).find("but nothing on the page changed: nothing had the focus"), std::string::npos)
      << result_of(0);
  // A read-only field takes no keys either (its click opened the calendar, which is what changed).
  EXPECT_NE(result_of(1).find("read-only"), std::string::npos) << result_of(1);
}

TEST_F(AgentWidgets, AReadOnlyFieldThatOpensACalendarHasALabel) {
  const CliRun run_ = run("picker.html", {with_labels(R"({"click": "{{Departure date}}"})"),
                                          with_labels(R"({"click": "{{15 December}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("departure=15 December")) << testing::PrintToString(events());
  EXPECT_EQ(reason_for("Departure date"), "opens");
}

TEST_F(AgentWidgets, RowsButtonsAndACustomSelectWithDelegatedHandlersHaveLabels) {
  const CliRun run_ =
      run("delegated.html",
          {with_labels(R"({"click": "{{Banana}}"})"), with_labels(R"({"click": "{{Italic}}"})"),
           with_labels(R"({"click": "{{Order 1002}}"})"), with_labels(R"({"click": "{{Choose a size}}"})"),
           with_labels(R"({"click": "{{Large}}"})"), with_labels(R"({"click": "{{Pro plan}}"})")});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_TRUE(saw("fruit=Banana")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("tool=italic")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("order=1002")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("size=Large")) << testing::PrintToString(events());
  EXPECT_TRUE(saw("plan=pro")) << testing::PrintToString(events());
  // The rows and the bar's buttons: each of several alike children of the element that listens; the select and the
  // card: the one element that listens (a listener of its own), its caret and text, or title and text, inside it.
  EXPECT_EQ(reason_for("Banana"), "delegated");
  EXPECT_EQ(reason_for("Italic"), "delegated");
  EXPECT_EQ(reason_for("Order 1001"), "delegated");
  EXPECT_EQ(reason_for("Choose a size"), "click-listener");
  EXPECT_EQ(reason_for("Pro plan"), "click-listener");
}

TEST_F(AgentWidgets, WithVimiumsRulesTheDelegatedRowsHaveNoLabel) {
  const CliRun run_ = run("delegated.html", {with_labels(R"({"click": "{{Banana}}"})")}, {"--hints", "vimium"});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_FALSE(saw("fruit=Banana"));
  EXPECT_EQ(reason_for("Banana"), "none");
  EXPECT_NE(result_of(0).find("no hint labelled"), std::string::npos) << result_of(0);
}

TEST_F(AgentWidgets, ABoxScrolledToItsEndIsProgressNotALoop) {
  // The same action four times on a page whose labels do not change: the box moves each time, so the run goes on.
  std::vector<test::Reply> replies(4, with_labels(R"({"scroll": "down", "in": "{{Terms of service}}"})"));
  const CliRun run_ = run("terms.html", replies);
  ASSERT_EQ(run_.exit_code, 0) << run_.err << run_.out;
  const std::regex moved("by (\\d+) px");
  for (std::size_t step = 0; step < 4; ++step) {
    const std::string result = result_of(step);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(result, match, moved)) << result;
    // Most of the box's visible height (100 px), as a person's page-down moves it, not a wheel notch.
    EXPECT_GE(std::stoi(match[1]), 75) << result;
  }
  EXPECT_EQ(read_steps(record()).size(), 5U);  // four scrolls and done: no "stuck"
}

}  // namespace
}  // namespace vimgpt
