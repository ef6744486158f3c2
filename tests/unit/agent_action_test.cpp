// The action vocabulary: the seed's contract, its priority order, and what is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "common/url.h"
#include "support/assertions.h"

namespace vimgpt::agent {
namespace {

Action parse(const char* json) {
  auto action = parse_action(Json::parse(json));
  EXPECT_TRUE(action) << json << ": " << (action ? "" : action.error().describe());
  return action ? *action : Action{};
}

Error refusal(const Json& reply) {
  auto action = parse_action(reply);
  EXPECT_FALSE(action) << reply.dump();
  return action ? Error{} : action.error();
}

TEST(AgentActions, SeedContract) {
  EXPECT_EQ(parse(R"({"click": "AB"})").kind, ActionKind::Click);
  EXPECT_EQ(parse(R"({"click": "AB"})").label, "AB");
  EXPECT_EQ(parse(R"({"type": "hello"})").kind, ActionKind::Type);
  const Action both = parse(R"({"click": "AB", "type": "hello"})");
  EXPECT_EQ(both.kind, ActionKind::ClickType);
  EXPECT_EQ(both.label, "AB");
  EXPECT_EQ(both.text, "hello");
  const Action done = parse(R"({"done": "the answer is 42"})");
  EXPECT_EQ(done.kind, ActionKind::Done);
  EXPECT_EQ(done.answer, "the answer is 42");
  EXPECT_EQ(parse(R"({"done": null})").kind, ActionKind::Done);  // the seed's "done with no value"
}

// Every reply the original's documentation shows as valid (../shared/original/vision-module.md, actions.md).
TEST(AgentActions, TheOriginalsDocumentedRepliesMeanWhatTheySay) {
  EXPECT_EQ(parse(R"({"navigate": "https://arxiv.org"})").text, "https://arxiv.org");
  EXPECT_EQ(parse(R"({"navigate": "github.com"})").text, "https://github.com");
  const Action search = parse(R"({"click": "F", "type": "quantum computing"})");
  EXPECT_EQ(search.kind, ActionKind::ClickType);
  EXPECT_EQ(search.enter, Enter::Auto);
  EXPECT_EQ(parse(R"({"click": "ab"})").label, "ab");
  for (const char* done :
       {R"({"done": null})", R"({"done": true})", R"({"done": ""})", R"({"done": "42"})", R"({"done": false})"}) {
    EXPECT_EQ(parse(done).kind, ActionKind::Done) << done;  // the key is what matters
  }
}

TEST(AgentActions, DoneFalseBesideAnActionIsAStructuredNotDoneYet) {
  EXPECT_EQ(parse(R"({"done": false, "click": "A"})").kind, ActionKind::Click);
  EXPECT_EQ(parse(R"({"done": false, "navigate": null, "type": "x"})").kind, ActionKind::Type);
  EXPECT_EQ(parse(R"({"done": null, "click": "A"})").kind, ActionKind::Done);  // the seed's order
}

TEST(AgentActions, AnOpenFamilysPointActionsAndWhatItCannotDo) {
  // Hover, double, triple and right clicks at a point of the frame (an open family's or a computer tool's, converted
  // by the vision module).
  for (const auto& [key, kind] :
       {std::pair{"hover", ActionKind::Hover}, std::pair{"double_click", ActionKind::DoubleClick},
        std::pair{"triple_click", ActionKind::TripleClick}, std::pair{"right_click", ActionKind::RightClick}}) {
    auto action = parse_action(Json{{key, {12.5, 40}}});
    ASSERT_TRUE(action) << key << ": " << action.error().message;
    EXPECT_EQ(action->kind, kind);
    EXPECT_TRUE(action->label.empty());
    EXPECT_DOUBLE_EQ(action->x, 12.5);
    EXPECT_DOUBLE_EQ(action->y, 40);
    EXPECT_EQ(to_json(*action), (Json{{key, {12.5, 40.0}}}));
    EXPECT_FALSE(parse_action(Json{{key, {-1, 40}}})) << key;
  }
  // Where the pointer rests: the clicks and a drag's start, never a hover (it would not move).
  for (const char* key : {"click_at", "double_click", "triple_click", "right_click"}) {
    auto action = parse_action(Json{{key, "pointer"}});
    ASSERT_TRUE(action) << key << ": " << action.error().message;
    EXPECT_TRUE(action->at_pointer) << key;
    EXPECT_TRUE(action->label.empty()) << key;
    EXPECT_NE(describe(*action).find("where the pointer rests"), std::string::npos) << describe(*action);
  }
  auto drag = parse_action(Json{{"drag", "pointer"}, {"to", {5, 6}}});
  ASSERT_TRUE(drag) << drag.error().message;
  EXPECT_TRUE(drag->at_pointer);
  EXPECT_FALSE(parse_action(Json{{"hover", "pointer"}})->at_pointer);
  // The wheel at a point of the frame.
  auto scroll = parse_action(Json{{"scroll", "down"}, {"in", {30, 40}}});
  ASSERT_TRUE(scroll) << scroll.error().message;
  EXPECT_TRUE(scroll->in_point);
  EXPECT_TRUE(scroll->in.empty());
  EXPECT_DOUBLE_EQ(scroll->x, 30);
  EXPECT_EQ(describe(*scroll), "scroll down at (30, 40)");
  // What a dialect's action vimgpt cannot do: the model reads why, in the vision module's words.
  auto unsupported = parse_action(Json{{"unsupported", "vimgpt cannot do computer_use action \"middle_click\""}});
  ASSERT_FALSE(unsupported);
  EXPECT_NE(unsupported.error().message.find("middle_click"), std::string::npos);
}

TEST(AgentActions, ADialogAnswerIsAcceptOrDismissAndOnlyAcceptCarriesText) {
  auto accept = parse_action(Json{{"dialog", "accept"}, {"dialog_text", "Q3 report"}});
  ASSERT_OK(accept);
  EXPECT_EQ(accept->kind, ActionKind::Dialog);
  EXPECT_TRUE(accept->accept);
  EXPECT_EQ(accept->text, "Q3 report");
  EXPECT_EQ(to_json(*accept), (Json{{"dialog", "accept"}, {"dialog_text", "Q3 report"}}));
  auto dismiss = parse_action(Json{{"dialog", "dismiss"}});
  ASSERT_OK(dismiss);
  EXPECT_FALSE(dismiss->accept);
  EXPECT_EQ(to_json(*dismiss), (Json{{"dialog", "dismiss"}}));
  const auto maybe = parse_action(Json{{"dialog", "maybe"}});
  ASSERT_FALSE(maybe);
  EXPECT_NE(maybe.error().message.find("\"accept\" or \"dismiss\""), std::string::npos);
  const auto dismissed_text = parse_action(Json{{"dialog", "dismiss"}, {"dialog_text", "x"}});
  ASSERT_FALSE(dismissed_text);
  EXPECT_NE(dismissed_text.error().message.find("goes with \"dialog\": \"accept\""), std::string::npos);
}

TEST(AgentActions, SeedPriorityWhenSeveralKeysArrive) {
  EXPECT_EQ(parse(R"({"navigate": "a.com", "click": "A", "type": "x", "done": 1})").kind, ActionKind::Done);
  EXPECT_EQ(parse(R"({"navigate": "a.com", "click": "A", "type": "x"})").kind, ActionKind::ClickType);
  EXPECT_EQ(parse(R"({"navigate": "a.com", "type": "x"})").kind, ActionKind::Navigate);
  EXPECT_EQ(parse(R"({"navigate": "a.com", "click": "A"})").kind, ActionKind::Navigate);
  EXPECT_EQ(parse(R"({"type": "x", "scroll": "down"})").kind, ActionKind::Type);
  EXPECT_EQ(parse(R"({"click": "A", "scroll": "down"})").kind, ActionKind::Click);
}

TEST(AgentActions, NavigateAddsHttpsAndRefusesOtherSchemes) {
  EXPECT_EQ(parse(R"({"navigate": "example.com/a?b=c"})").text, "https://example.com/a?b=c");
  EXPECT_EQ(parse(R"({"navigate": "localhost:8080/x"})").text, "https://localhost:8080/x");
  EXPECT_EQ(parse(R"({"navigate": "http://127.0.0.1:5/"})").text, "http://127.0.0.1:5/");
  // A path, as the label lists write a link on the page's site: resolved against the page when acted on.
  EXPECT_EQ(parse(R"({"navigate": "/item/64?x=1"})").text, "/item/64?x=1");
  EXPECT_EQ(parse(R"({"navigate": "//cdn.example.com/a"})").text, "https://cdn.example.com/a");
  EXPECT_EQ(parse(R"({"navigate": "  HTTPS://Example.com  "})").text, "HTTPS://Example.com");
  for (const char* url : {"javascript:alert(1)", "file:///etc/passwd", "chrome://settings", "data:text/html,hi",
                          "about:blank", "view-source:https://a.com"}) {
    const Error error = refusal(Json{{"navigate", url}});
    EXPECT_EQ(error.kind, ErrorKind::Refused) << url;
    EXPECT_NE(error.message.find("only http and https"), std::string::npos) << url;
  }
}

TEST(AgentActions, ExtensionsParseAndValidate) {
  EXPECT_EQ(parse(R"({"scroll": "UP"})").direction, browser::ScrollDirection::Up);
  EXPECT_EQ(parse(R"({"back": true})").kind, ActionKind::Back);
  EXPECT_EQ(parse(R"({"key": "Escape"})").text, "Escape");
  const Action select = parse(R"({"select": "AB", "option": "Large"})");
  EXPECT_EQ(select.kind, ActionKind::Select);
  EXPECT_EQ(select.text, "Large");
  EXPECT_DOUBLE_EQ(parse(R"({"wait": 2.5})").seconds, 2.5);
  const Action at = parse(R"({"click_at": [100, 200.5]})");
  EXPECT_EQ(at.kind, ActionKind::ClickAt);
  EXPECT_DOUBLE_EQ(at.y, 200.5);

  EXPECT_EQ(parse(R"({"type": "x", "enter": false})").enter, Enter::Skip);
  EXPECT_EQ(parse(R"({"click": "A", "type": "x", "enter": true})").enter, Enter::Press);
  const Action upload = parse(R"({"upload": "AB", "file": "cv.pdf"})");
  EXPECT_EQ(upload.kind, ActionKind::Upload);
  EXPECT_EQ(upload.label, "AB");
  EXPECT_EQ(upload.text, "cv.pdf");
  EXPECT_EQ(parse(R"({"tab": 2})").tab, 2);
  EXPECT_EQ(parse(R"({"tab": 3.0})").tab, 3);
  EXPECT_EQ(parse(R"({"close_tab": true})").kind, ActionKind::CloseTab);
  const Action page = parse(R"({"page": 12})");
  EXPECT_EQ(page.kind, ActionKind::Page);
  EXPECT_EQ(page.page, 12);
  EXPECT_EQ(to_json(page), Json::parse(R"({"page": 12})"));
  const Action ask = parse(R"({"ask": "  Which date do you want?  "})");
  EXPECT_EQ(ask.kind, ActionKind::Ask);
  EXPECT_EQ(ask.text, "Which date do you want?");
  const Action handoff = parse(R"({"handoff": " Please log in, then press Resume "})");
  EXPECT_EQ(handoff.kind, ActionKind::Handoff);
  EXPECT_EQ(handoff.text, "Please log in, then press Resume");
  EXPECT_EQ(to_json(handoff), Json::parse(R"({"handoff": "Please log in, then press Resume"})"));

  EXPECT_EQ(refusal(Json::parse(R"({"type": "x", "enter": "yes"})")).kind, ErrorKind::InvalidArgument);
  EXPECT_NE(refusal(Json::parse(R"({"upload": "AB"})")).message.find("\"file\""), std::string::npos);
  EXPECT_EQ(refusal(Json::parse(R"({"tab": 0})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"tab": 1.5})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"tab": "2"})")).kind, ErrorKind::InvalidArgument);
  EXPECT_NE(refusal(Json::parse(R"({"page": 0})")).message.find("a page of the PDF shown, from 1"), std::string::npos);
  EXPECT_EQ(refusal(Json::parse(R"({"page": 2.5})")).kind, ErrorKind::InvalidArgument);
  EXPECT_NE(refusal(Json::parse(R"({"ask": "  "})")).message.find("question"), std::string::npos);
  EXPECT_NE(refusal(Json::parse(R"({"ask": null})")).message.find("question"), std::string::npos);
  EXPECT_NE(refusal(Json::parse(R"({"handoff": ""})")).message.find("Resume"), std::string::npos);
  // Like ask, a handoff waits for a person: never inside a list.
  EXPECT_NE(refusal(Json::parse(R"({"actions": [{"click": "A"}, {"handoff": "log in"}]})")).message.find("handoff"),
            std::string::npos);
  EXPECT_EQ(refusal(Json::parse(R"({"key": "F13"})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"wait": 11})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"wait": -1})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"scroll": "sideways"})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"click_at": [1]})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"select": "AB"})")).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json::parse(R"({"click": ""})")).kind, ErrorKind::InvalidArgument);
}

TEST(AgentActions, AHandsVocabularyBeyondClickAndType) {
  EXPECT_EQ(parse(R"({"hover": "AB"})").kind, ActionKind::Hover);
  EXPECT_EQ(parse(R"({"double_click": "AB"})").kind, ActionKind::DoubleClick);
  EXPECT_EQ(parse(R"({"triple_click": "AB"})").kind, ActionKind::TripleClick);
  EXPECT_EQ(describe(parse(R"({"triple_click": "AB"})")), "triple-click AB");
  EXPECT_EQ(parse(R"({"right_click": "AB"})").label, "AB");
  const Action in = parse(R"({"scroll": "down", "in": "CD"})");
  EXPECT_EQ(in.kind, ActionKind::Scroll);
  EXPECT_EQ(in.in, "CD");
  const Action labels = parse(R"({"drag": "AB", "to": "CD"})");
  EXPECT_EQ(labels.label, "AB");
  EXPECT_EQ(labels.to_label, "CD");
  const Action points = parse(R"({"drag": [10, 20], "to": [30.5, 40]})");
  EXPECT_TRUE(points.label.empty());
  EXPECT_DOUBLE_EQ(points.x, 10);
  EXPECT_DOUBLE_EQ(points.to_x, 30.5);
  const Action mixed = parse(R"({"drag": "AB", "to": [300, 16]})");
  EXPECT_EQ(mixed.label, "AB");
  EXPECT_TRUE(mixed.to_label.empty());
  EXPECT_DOUBLE_EQ(mixed.to_y, 16);
  const Action words = parse(R"({"select_text": "the code", "in": "EF"})");
  EXPECT_EQ(words.kind, ActionKind::SelectText);
  EXPECT_EQ(words.in, "EF");
  EXPECT_EQ(parse(R"({"key": "ctrl+shift+arrowleft"})").text, "Control+Shift+ArrowLeft");  // as a person would say it
  // A computer tool's zoom: any two opposite corners, kept as top left and bottom right.
  const Action zoom = parse(R"({"zoom": [40, 30, 10, 5]})");
  EXPECT_EQ(zoom.kind, ActionKind::Zoom);
  EXPECT_DOUBLE_EQ(zoom.x, 10);
  EXPECT_DOUBLE_EQ(zoom.y, 5);
  EXPECT_DOUBLE_EQ(zoom.to_x, 40);
  EXPECT_DOUBLE_EQ(zoom.to_y, 30);
  EXPECT_EQ(to_json(zoom), (Json{{"zoom", {10.0, 5.0, 40.0, 30.0}}}));
  EXPECT_NE(refusal(Json{{"zoom", {1, 2, 3}}}).message.find("[x0, y0, x1, y1]"), std::string::npos);
  EXPECT_NE(refusal(Json{{"zoom", {1, 2, 1, 9}}}).message.find("no area"), std::string::npos);

  EXPECT_NE(refusal(Json{{"drag", "AB"}}).message.find("needs \"to\""), std::string::npos);
  EXPECT_NE(refusal(Json{{"drag", {1}}, {"to", "A"}}).message.find("[x, y]"), std::string::npos);
  EXPECT_NE(refusal(Json{{"drag", {-5, 3}}, {"to", "A"}}).message.find("[x, y]"), std::string::npos);
  EXPECT_NE(refusal(Json{{"select_text", "  "}}).message.find("words"), std::string::npos);
  EXPECT_EQ(refusal(Json{{"scroll", "down"}, {"in", ""}}).kind, ErrorKind::InvalidArgument);
  EXPECT_EQ(refusal(Json{{"hover", ""}}).kind, ErrorKind::InvalidArgument);
}

TEST(AgentActions, AnActionsListIsParsedWholeAndRefusesWhatCannotBeInIt) {
  const Action list = parse(R"({"actions": [{"click": "A", "type": "Ada"}, {"select": "B", "option": "PT"},
                                             {"click": "C"}, {"done": "sent"}]})");
  ASSERT_EQ(list.kind, ActionKind::Actions);
  ASSERT_EQ(list.actions.size(), 4U);
  EXPECT_EQ(list.actions[1].kind, ActionKind::Select);
  EXPECT_TRUE(ends_done(list));
  // Its labels in order, for a recording's signatures and a replay.
  std::vector<std::string> labels;
  for (const auto* label : labels_of(list)) labels.push_back(*label);
  EXPECT_EQ(labels, (std::vector<std::string>{"A", "B", "C"}));
  const Action drag = parse(R"({"drag": "X", "to": "Y"})");
  EXPECT_EQ(labels_of(drag).size(), 2U);

  const auto error = [](const char* json) { return refusal(Json::parse(json)).message; };
  EXPECT_NE(error(R"({"actions": []})").find("a list of actions"), std::string::npos);
  EXPECT_NE(
      error(R"({"actions": [{"click": "A"}, {"actions": [{"click": "B"}]}]})").find("action 2 of the list is actions"),
      std::string::npos);
  EXPECT_NE(error(R"({"actions": [{"ask": "why?"}]})").find("ask and handoff alone"), std::string::npos);
  EXPECT_NE(error(R"({"actions": [{"done": true}, {"click": "A"}]})").find("before its end"), std::string::npos);
  EXPECT_NE(error(R"({"actions": [{"click": "A"}, {"click": ""}]})").find("action 2 of the list: "), std::string::npos);
  // Past the limit the first ones are taken and the rest kept aside, to be named as not done: the reply is not lost.
  auto six = parse_action(Json::parse(R"({"actions": [{"back": true}, {"back": true}, {"back": true}, {"back": true},
                                                       {"back": true}, {"scroll": "up"}]})"));
  ASSERT_OK(six);
  EXPECT_EQ(six->actions.size(), 5U);
  ASSERT_EQ(six->over_limit.size(), 1U);
  EXPECT_EQ(six->over_limit[0], Json::parse(R"({"scroll": "up"})"));
  auto two = parse_action(Json::parse(R"({"actions": [{"back": true}, {"done": "yes"}]})"), 1);
  ASSERT_OK(two);
  EXPECT_EQ(two->actions.size(), 1U);
  EXPECT_FALSE(ends_done(*two));  // the done past the limit was not taken: the run does not end on it
  EXPECT_TRUE(parse_action(Json::parse(R"({"actions": [{"back": true}, {"back": true}]})"), 2));
}

TEST(AgentKeys, CombinationsAsAPersonPressesThem) {
  auto keys = browser::parse_keys("Control+A");
  ASSERT_OK(keys);
  EXPECT_EQ(keys->modifiers, unsigned{browser::kControl});
  EXPECT_EQ(keys->key, "a");
  EXPECT_EQ(keys->code, "KeyA");
  EXPECT_EQ(keys->virtual_key, 65);
  EXPECT_EQ(keys->text, "");     // a shortcut types nothing
  EXPECT_EQ(keys->command, "");  // Chromium on Linux runs Control's editing shortcuts itself
  auto meta = browser::parse_keys("Cmd+c");
  ASSERT_OK(meta);
  EXPECT_EQ(meta->modifiers, unsigned{browser::kMeta});
  EXPECT_EQ(meta->command, "copy");  // as macOS would
  auto shifted = browser::parse_keys("Shift+a");
  ASSERT_OK(shifted);
  EXPECT_EQ(shifted->key, "A");
  EXPECT_EQ(shifted->text, "A");
  auto plus = browser::parse_keys("Control++");
  ASSERT_OK(plus);
  EXPECT_EQ(plus->key, "+");
  EXPECT_EQ(plus->code, "Equal");
  auto f5 = browser::parse_keys("F5");
  ASSERT_OK(f5);
  EXPECT_EQ(f5->virtual_key, 116);
  auto tab = browser::parse_keys("shift+tab");
  ASSERT_OK(tab);
  EXPECT_EQ(browser::to_string(*tab), "Shift+Tab");
  auto enter = browser::parse_keys("Enter");
  ASSERT_OK(enter);
  EXPECT_EQ(enter->text, "\r");
  for (const char* bad : {"Hyper+Q", "Control+Banana", "F13", "", "Control+"}) {
    EXPECT_FALSE(browser::parse_keys(bad)) << bad;
  }
  EXPECT_NE(browser::parse_keys("Hyper+Q").error().message.find("unknown modifier 'Hyper'"), std::string::npos);
}

TEST(AgentActions, BadShapesAreErrorsTheModelCanReadNotCrashes) {
  EXPECT_NE(refusal(Json::object()).message.find("empty object"), std::string::npos);
  EXPECT_NE(refusal(Json::array({Json{{"click", "A"}}})).message.find("an array"), std::string::npos);
  EXPECT_NE(refusal(Json("click A")).message.find("one JSON object"), std::string::npos);
  const Error unknown = refusal(Json{{"tap", "A"}});
  EXPECT_NE(unknown.message.find("tap"), std::string::npos);
  EXPECT_NE(unknown.message.find("Allowed keys: navigate (URL string), click (label string)"), std::string::npos)
      << unknown.message;
  const Error huge = refusal(Json{{"type", std::string(10 * 1024, 'x')}});
  EXPECT_EQ(huge.kind, ErrorKind::Refused);
  EXPECT_NE(huge.message.find("10240"), std::string::npos);
}

TEST(AgentActions, JsonRoundTripKeepsTheMeaning) {
  for (const char* reply : {R"({"click": "AB", "type": "x"})",
                            R"({"navigate": "https://a.com/"})",
                            R"({"select": "C", "option": "Blue"})",
                            R"({"scroll": "up"})",
                            R"({"wait": 1.0})",
                            R"({"click_at": [3.0, 4.0]})",
                            R"({"key": "Tab"})",
                            R"({"done": "yes"})",
                            R"({"type": "x", "enter": false})",
                            R"({"click": "A", "type": "x", "enter": true})",
                            R"({"upload": "B", "file": "a.txt"})",
                            R"({"tab": 2})",
                            R"({"close_tab": true})",
                            R"({"ask": "Which one?"})",
                            R"({"hover": "H"})",
                            R"({"double_click": "D"})",
                            R"({"right_click": "R"})",
                            R"({"scroll": "down", "in": "L"})",
                            R"({"drag": "A", "to": [5.0, 6.0]})",
                            R"({"drag": [1.0, 2.0], "to": "B"})",
                            R"({"drag": "pointer", "to": [7.0, 8.0]})",
                            R"({"click_at": "pointer"})",
                            R"({"right_click": "pointer"})",
                            R"({"scroll": "down", "in": [9.0, 10.0]})",
                            R"({"select_text": "w", "in": "E"})",
                            R"({"key": "Control+Shift+Z"})",
                            R"({"actions": [{"click": "A", "type": "x"}, {"hover": "B"}]})"}) {
    const Action action = parse(reply);
    auto again = parse_action(to_json(action));
    ASSERT_OK(again);
    EXPECT_EQ(to_json(*again), to_json(action)) << reply;
  }
}

TEST(AgentUploads, OnlyRegularFilesInsideTheUploadFolder) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("vimgpt-uploads-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "inside" / "sub");
  std::ofstream(root / "inside" / "cv.pdf") << "%PDF";
  std::ofstream(root / "inside" / "sub" / "deep.txt") << "x";
  std::ofstream(root / "secret.txt") << "no";
  fs::create_symlink(root / "secret.txt", root / "inside" / "link.txt");
  const std::string dir = (root / "inside").string();

  EXPECT_EQ(upload_choices(dir), (std::vector<std::string>{"cv.pdf", "link.txt"}));
  auto found = upload_path(dir, "cv.pdf");
  ASSERT_OK(found);
  EXPECT_EQ(*found, fs::canonical(root / "inside" / "cv.pdf").string());
  EXPECT_TRUE(upload_path(dir, "sub/deep.txt"));
  for (const std::string& outside : std::vector<std::string>{"../secret.txt", (root / "secret.txt").string(),
                                                             "link.txt", "sub/../../secret.txt", "", "."}) {
    auto refused = upload_path(dir, outside);
    ASSERT_FALSE(refused) << outside;
    EXPECT_EQ(refused.error().kind, ErrorKind::Refused) << outside << ": " << refused.error().message;
  }
  auto missing = upload_path(dir, "photo.jpg");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cv.pdf"), std::string::npos) << missing.error().message;  // what there is
  auto off = upload_path("", "cv.pdf");
  ASSERT_FALSE(off);
  EXPECT_NE(off.error().message.find("--upload-dir"), std::string::npos);
  fs::remove_all(root);
}

TEST(AgentOutcomes, ExitCodesAreTheDocumentedOnes) {
  EXPECT_EQ(exit_code(Outcome::Done), 0);
  EXPECT_EQ(exit_code(Outcome::Error), 1);
  EXPECT_EQ(exit_code(Outcome::BudgetExhausted), 2);
  EXPECT_EQ(exit_code(Outcome::Stuck), 3);
  EXPECT_EQ(exit_code(Outcome::NeedsInput), 4);
  EXPECT_EQ(to_string(Outcome::NeedsInput), "needs_input");
  EXPECT_EQ(exit_code(Outcome::Interrupted), 130);
}

}  // namespace
}  // namespace vimgpt::agent

namespace vimgpt::agent {
namespace {

TEST(AgentPolicy, HostsAndPatterns) {
  EXPECT_EQ(url_host("https://User@WWW.Example.com:8443/a?b#c"), "www.example.com");
  EXPECT_EQ(url_host("http://127.0.0.1:9/"), "127.0.0.1");
  EXPECT_EQ(url_host("http://[::1]:80/x"), "[::1]");
  EXPECT_EQ(url_host("about:blank"), "");
  EXPECT_EQ(url_origin("https://a.example:8443/x?y#z"), "https://a.example:8443");
  EXPECT_EQ(url_origin("http://127.0.0.1?q=1"), "http://127.0.0.1");
  EXPECT_EQ(url_origin("data:text/html,x"), "");
  auto policy = NavigationPolicy::create({"*.example.com", "127.0.0.1"}, {"ads.example.com"});
  ASSERT_OK(policy);
  EXPECT_FALSE(policy->refusal("https://example.com/"));
  EXPECT_FALSE(policy->refusal("https://shop.example.com/x"));
  EXPECT_FALSE(policy->refusal("http://127.0.0.1:8080/"));
  EXPECT_TRUE(policy->refusal("https://ads.example.com/"));  // block wins
  EXPECT_TRUE(policy->refusal("https://evil.test/"));
  EXPECT_TRUE(policy->refusal("https://notexample.com/"));  // a suffix is not a subdomain
  EXPECT_TRUE(policy->refusal("https://example.com.evil.test/"));
  EXPECT_TRUE(policy->refusal("ftp://example.com/"));
  auto open = NavigationPolicy::create({}, {"evil.test"});
  ASSERT_OK(open);
  EXPECT_FALSE(open->refusal("https://anything.org/"));
  EXPECT_TRUE(open->refusal("https://evil.test/"));
  EXPECT_FALSE(NavigationPolicy::create({"http://x.com"}, {}));
  EXPECT_FALSE(NavigationPolicy::create({"*"}, {}));
}

// --confirm-risky's rule: leaving the task's sites (the start page's, its subdomains and parents), a secret, a file.
TEST(RiskOf, LeavingTheSitesTypingASecretAndUploadingAreRiskyAndNothingElse) {
  hints::Hint home;
  home.label = "A";
  home.role = "link";
  home.href = "https://shop.example.com/cart";
  hints::Hint away = home;
  away.label = "B";
  away.href = "https://evil.test/login";
  hints::Hint button = away;
  button.label = "C";
  button.role = "button";  // a button whose page-given href is not where a click goes: left to the page's own checks
  const hints::HintMap map(1, {home, away, button});
  const std::vector<std::string> task{"www.example.com"};  // shop.example.com is a sibling: the same site
  const auto risk = [&](const char* reply) {
    auto action = parse_action(nlohmann::json::parse(reply));
    EXPECT_TRUE(action) << reply;
    return action ? risk_of(*action, map, 0, task) : std::nullopt;
  };
  EXPECT_FALSE(risk(R"({"click": "A"})"));
  EXPECT_FALSE(risk(R"({"click": "C"})"));
  EXPECT_FALSE(risk(R"({"navigate": "https://www.example.com/a"})"));
  EXPECT_FALSE(risk(R"({"type": "hello"})"));
  EXPECT_FALSE(risk(R"({"key": "Enter"})"));
  const auto link = risk(R"({"click": "B"})");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->why, "it leaves the task's sites for evil.test");
  EXPECT_EQ(link->host, "evil.test");
  // One site is one registrable domain (the Public Suffix List): a sibling subdomain is the same site, two users'
  // pages on a shared suffix are not, and an IP address is only itself.
  EXPECT_FALSE(risk(R"({"navigate": "https://checkout.pay.example.com/"})"));
  for (const char* elsewhere : {"https://other.co.uk/", "https://evil.github.io/"}) {
    EXPECT_TRUE(risk_of(*parse_action({{"navigate", elsewhere}}), map, 0, {"shop.example.co.uk", "alice.github.io"}))
        << elsewhere;
  }
  EXPECT_FALSE(risk_of(*parse_action({{"navigate", "https://pay.example.co.uk/"}}), map, 0, {"shop.example.co.uk"}));
  EXPECT_FALSE(risk_of(*parse_action({{"navigate", "https://example.co.uk/"}}), map, 0, {"shop.example.co.uk"}));
  EXPECT_TRUE(risk_of(*parse_action({{"navigate", "http://10.0.0.1/"}}), map, 0, {"127.0.0.1"}));
  EXPECT_TRUE(risk_of(*parse_action({{"navigate", "http://localhost:8080/"}}), map, 0, {"127.0.0.1"}));
  const auto navigation = risk(R"({"navigate": "notexample.com"})");  // a suffix that is not a parent domain
  ASSERT_TRUE(navigation);
  EXPECT_EQ(navigation->host, "notexample.com");
  const auto secret = risk(R"({"click": "A", "type": "<secret:PW> and more"})");
  ASSERT_TRUE(secret);
  EXPECT_EQ(secret->why, "it types the secret PW");
  EXPECT_TRUE(secret->host.empty());
  const auto upload = risk(R"({"upload": "A", "file": "cv.pdf"})");
  ASSERT_TRUE(upload);
  EXPECT_EQ(upload->why, "it gives the page the file cv.pdf");
  const auto listed =
      risk(R"({"actions": [{"type": "x"}, {"navigate": "https://evil.test"}, {"upload": "A", "file": "f"}]})");
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->host, "evil.test");  // the first risky one
  EXPECT_FALSE(risk_of(*parse_action(nlohmann::json::parse(R"({"navigate": "https://example.com"})")), map, 0, task));
}

// A point (a computer tool's or an open model's click) means the element it lands on: on a link to another site it
// is as risky as that link's label, the point read in the frame's pixels (here half the viewport's).
TEST(RiskOf, APointOnALinkToAnotherSiteIsRiskyLikeItsLabel) {
  hints::Hint away;
  away.label = "A";
  away.role = "link";
  away.href = "https://evil.test/login";
  away.rect = {100, 100, 200, 40};
  hints::Hint card = away;  // a clickable card around a link to the task's own site
  card.label = "B";
  card.href = "https://www.example.com/item";
  card.rect = {0, 300, 800, 300};
  hints::Hint inner = away;  // the link inside the card: the innermost element is what a point on it means
  inner.label = "C";
  inner.rect = {40, 340, 100, 30};
  const hints::HintMap map(1, {away, card, inner}, 1000, 800);
  const std::vector<std::string> task{"www.example.com"};
  const auto point = [&](double x, double y, const char* kind = "click_at") {
    auto action = parse_action(nlohmann::json::parse(std::string(R"({")") + kind + R"(": [)" + std::to_string(x) +
                                                     ", " + std::to_string(y) + "]}"));
    EXPECT_TRUE(action) << kind;
    return action ? risk_of(*action, map, 500, task) : std::nullopt;
  };
  const auto on_link = point(75, 60);  // (150, 120) in the viewport: inside A
  ASSERT_TRUE(on_link);
  EXPECT_EQ(on_link->host, "evil.test");
  EXPECT_TRUE(point(75, 60, "double_click"));
  EXPECT_FALSE(point(40, 160));  // (80, 320): the card, whose link stays on the site
  EXPECT_TRUE(point(30, 175));   // (60, 350): the card's inner link, which leaves it
  EXPECT_FALSE(point(400, 10));  // nothing there
  // Without the frame's width a point is not read (nothing can say where it lands).
  EXPECT_FALSE(risk_of(*parse_action(nlohmann::json::parse(R"({"click_at": [75, 60]})")), map, 0, task));
}

}  // namespace
}  // namespace vimgpt::agent
