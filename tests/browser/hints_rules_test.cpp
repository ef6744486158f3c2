// The hint engine against a real Chromium: one fixture page per rule (positive and negative cases), and a
// trusted click on every positive one, checked by the page's own handler.
#include <gtest/gtest.h>

#include "browser/hints_support.h"

namespace vimgpt::hints {
namespace {

using test_support::expect_hints;
using test_support::hint_for;
using test_support::HintsBrowserTest;

class HintsRules : public HintsBrowserTest {
 protected:
  // Clicks the hint named `token` and waits for the page to see a trusted click on element `t`.
  void click_and_expect(const HintMap& map, const std::string& token, const std::string& t) {
    const Hint& hint = hint_for(map, token);
    if (hint.label.empty()) return;
    auto clicked = click_label(tab(), map, hint.label);
    ASSERT_TRUE(clicked) << token << ": " << clicked.error().describe();
    const auto entry = wait_for("click", t);
    ASSERT_TRUE(entry.is_object()) << "no click reached " << t << " (" << token << ")";
    EXPECT_TRUE(entry["trusted"].get<bool>()) << t;
  }

  static HintMap hints_of(const std::string& page, const FindOptions& options = {}) {
    open("/fx/hints/" + page);
    auto map = find_hints(tab(), options);
    EXPECT_TRUE(map) << map.error().describe();
    return map ? std::move(*map) : HintMap();
  }
};

const std::map<std::string, Reason> kRulePositives = {
    {"yes-link", Reason::Rule},           {"yes-button", Reason::Rule},           {"yes-text-input", Reason::Rule},
    {"yes-checkbox", Reason::Rule},       {"yes-textarea", Reason::Rule},         {"yes-select", Reason::Rule},
    {"yes-onclick", Reason::Rule},        {"yes-role-button", Reason::Rule},      {"yes-role-tab", Reason::Rule},
    {"yes-role-textbox", Reason::Rule},   {"yes-editable", Reason::Rule},         {"yes-jsaction", Reason::Rule},
    {"yes-ng-click", Reason::Rule},       {"yes-summary", Reason::Rule},          {"yes-tabindex", Reason::TabIndex},
    {"yes-btn-class", Reason::ClassName}, {"yes-wrapped-link", Reason::Rule},     {"yes-label", Reason::Rule},
    {"yes-labelled-box", Reason::Rule},   {"yes-scrollable", Reason::Scrollable}, {"yes-area-left", Reason::Rule},
    {"yes-area-right", Reason::Rule},     {"yes-readonly-input", Reason::Opens},
};

TEST_F(HintsRules, VimiumRulesAndOurs) {
  const HintMap map = hints_of("rules.html");
  expect_hints(map, kRulePositives,
               {"no-disabled-button", "no-aria-disabled", "no-hidden-input", "no-disabled-input", "no-jsaction-none",
                "no-plain-span", "no-plain-div", "no-negative-tabindex", "no-label-of-visible", "no-overflow-hidden"});
  // Labels follow Vimium's algorithm in document order.
  const auto labels = label_strings(map.size());
  ASSERT_EQ(labels.size(), map.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::string upper = labels[i];
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(map.hints()[i].label, upper);
  }
  const Hint& input = hint_for(map, "yes-text-input");
  EXPECT_EQ(input.role, "textbox");
  EXPECT_EQ(input.input_type, "text");
  EXPECT_EQ(input.value, FieldValue::Filled);
  EXPECT_EQ(hint_for(map, "yes-link").role, "link");
  EXPECT_NE(hint_for(map, "yes-link").href.find("#a"), std::string::npos);
}

// --hints vimium: exactly Vimium's set. What ours adds on this page (a read-only field, roles Vimium does not list, a
// "btn" class) has no label; everything else is as above (the summary's words label its <details>, as Vimium labels
// it, where ours labels the <summary>).
TEST_F(HintsRules, VimiumsRulesAlone) {
  FindOptions vimium;
  vimium.rules = HintRules::Vimium;
  const HintMap map = hints_of("rules.html", vimium);
  std::map<std::string, Reason> positives = kRulePositives;
  for (const auto* ours : {"yes-readonly-input", "yes-role-textbox", "yes-btn-class", "yes-summary"})
    positives.erase(ours);
  positives["yes-summaryinside"] = Reason::Rule;  // the <details>, named by all its words
  expect_hints(map, positives,
               {"yes-readonly-input", "yes-role-textbox", "yes-btn-class", "no-disabled-button", "no-plain-span"});
}

TEST_F(HintsRules, ClickingEachRuleHintReachesItsElementTrusted) {
  const HintMap map = hints_of("rules.html");
  const std::vector<std::pair<std::string, std::string>> clicks = {
      {"yes-link", "link"},
      {"yes-button", "button"},
      {"yes-checkbox", "checkbox"},
      {"yes-onclick", "onclick"},
      {"yes-role-button", "role-button"},
      {"yes-role-tab", "role-tab"},
      {"yes-jsaction", "jsaction"},
      {"yes-ng-click", "ng-click"},
      {"yes-tabindex", "tabindex"},
      {"yes-btn-class", "btn-class"},
      {"yes-wrapped-link", "wrapped-link"},
      {"yes-label", "label"},
      {"yes-labelled-box", "labelled-box"},
      {"yes-scrollable", "scrollable"},
      {"yes-area-left", "area-left"},
      {"yes-area-right", "area-right"},
      {"yes-summary", "summary"},
  };
  for (const auto& [token, t] : clicks) click_and_expect(map, token, t);
}

TEST_F(HintsRules, TextFieldsGetFocusWithTheCaretAtTheEnd) {
  const HintMap map = hints_of("rules.html");
  for (const std::string token : {"yes-text-input", "yes-textarea"}) {
    auto clicked = click_label(tab(), map, hint_for(map, token).label);
    ASSERT_TRUE(clicked) << clicked.error().describe();
    EXPECT_EQ(clicked->effect, Effect::Focused);
    auto state = tab().evaluate_in_page(
        "JSON.stringify([document.activeElement.getAttribute('aria-label'), document.activeElement.selectionStart,"
        " document.activeElement.selectionEnd, document.activeElement.value.length])");
    ASSERT_TRUE(state) << state.error().describe();
    const auto values = wire::Json::parse(state->get<std::string>());
    EXPECT_EQ(values[0], token);
    EXPECT_EQ(values[1], values[3]) << token << ": caret not at the end";
    EXPECT_EQ(values[2], values[3]);
  }
  auto editable = click_label(tab(), map, hint_for(map, "yes-editable").label);
  ASSERT_TRUE(editable) << editable.error().describe();
  EXPECT_EQ(editable->effect, Effect::Focused);
  auto caret = tab().evaluate_in_page(
      "(() => { const s = getSelection(); const el = document.activeElement;"
      " return el.dataset.t + ':' + (s.focusNode === el.firstChild ? s.focusOffset === el.firstChild.length :"
      " s.focusNode === el && s.focusOffset === el.childNodes.length); })()");
  ASSERT_TRUE(caret) << caret.error().describe();
  EXPECT_EQ(caret->get<std::string>(), "editable:true");
}

TEST_F(HintsRules, SelectListsItsOptionsThenChoosesOne) {
  const HintMap map = hints_of("rules.html");
  const std::string label = hint_for(map, "yes-select").label;
  auto listed = click_label(tab(), map, label);
  ASSERT_TRUE(listed) << listed.error().describe();
  EXPECT_EQ(listed->effect, Effect::OptionsListed);
  ASSERT_EQ(listed->options.size(), 3u);
  EXPECT_EQ(listed->options[1].text, "Green");
  EXPECT_TRUE(listed->options[0].selected);
  auto chosen = select_option(tab(), map, label, " green ");
  ASSERT_TRUE(chosen) << chosen.error().describe();
  EXPECT_EQ(chosen->effect, Effect::OptionSelected);
  EXPECT_EQ(chosen->selected, "Green");
  EXPECT_TRUE(wait_for("change", "select").is_object());
  auto value = tab().evaluate_in_page("document.querySelector('select').value");
  EXPECT_EQ(value->get<std::string>(), "Green");
  auto missing = select_option(tab(), map, label, "purple");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  EXPECT_NE(missing.error().message.find("\"Blue\""), std::string::npos) << missing.error().message;
  auto not_select = select_option(tab(), map, hint_for(map, "yes-link").label, "x");
  ASSERT_FALSE(not_select);
  EXPECT_EQ(not_select.error().kind, ErrorKind::InvalidArgument);
}

TEST_F(HintsRules, UnknownOrStaleLabelsAreErrorsNotCrashes) {
  const HintMap map = hints_of("rules.html");
  auto unknown = click_label(tab(), map, "[ZZZ]");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::NotFound);
  EXPECT_NE(unknown.error().message.find("ZZZ"), std::string::npos);
  EXPECT_NE(unknown.error().message.find(map.near("ZZZ").front()), std::string::npos) << unknown.error().message;
  // A new pass replaces the element references: the old map is refused, not misapplied.
  auto newer = find_hints(tab());
  ASSERT_TRUE(newer);
  auto stale = click_label(tab(), map, map.hints().front().label);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().kind, ErrorKind::NotFound);
  EXPECT_NE(stale.error().message.find("capture the hints again"), std::string::npos);
}

TEST_F(HintsRules, Visibility) {
  const HintMap map = hints_of("visibility.html");
  expect_hints(
      map, {{"yes-visible", Reason::Rule}, {"yes-partly-covered", Reason::Rule}, {"yes-floated-child", Reason::Rule}},
      {"no-visibility-hidden", "no-display-none", "no-zero-size", "no-tiny", "no-off-screen-left", "no-below-the-fold",
       "no-covered"});
  for (const auto& hint : map.hints()) {
    EXPECT_GE(hint.rect.x, 0);
    EXPECT_GE(hint.rect.y, 0);
    EXPECT_LE(hint.rect.x + hint.rect.width, 1080.5);
    EXPECT_LE(hint.rect.y + hint.rect.height, 720.5);
  }
  click_and_expect(map, "yes-partly-covered", "partly-covered");
  click_and_expect(map, "yes-floated-child", "floated");
}

TEST_F(HintsRules, ModalDialogCoversThePage) {
  const HintMap map = hints_of("modal.html");
  expect_hints(map, {{"yes-modal-ok", Reason::Rule}}, {"no-behind-modal", "no-button-behind"});
  click_and_expect(map, "yes-modal-ok", "modal-ok");
}

TEST_F(HintsRules, OpenShadowRoots) {
  const HintMap map = hints_of("shadow.html");
  expect_hints(
      map,
      {{"yes-light-link", Reason::Rule}, {"yes-shadow-button", Reason::Rule}, {"yes-nested-shadow-link", Reason::Rule}},
      {"no-shadow-disabled"});
  click_and_expect(map, "yes-shadow-button", "shadow-button");
  click_and_expect(map, "yes-nested-shadow-link", "nested-shadow-link");
}

TEST_F(HintsRules, CursorPointerInnermostOwnText) {
  const HintMap map = hints_of("pointer.html");
  expect_hints(map,
               {{"yes-pointer-div", Reason::CursorPointer},
                {"yes-pointer-inner", Reason::CursorPointer},
                {"yes-tree-one", Reason::CursorPointer},
                {"yes-tree-child", Reason::CursorPointer},
                {"yes-tree-two", Reason::CursorPointer},
                {"yes-link", Reason::Rule},
                {"yes-pointer-button", Reason::Rule}},
               {"no-default-cursor"});
  EXPECT_EQ(hint_for(map, "yes-pointer-inner").tag, "span");
  EXPECT_EQ(map.size(), 7u) << map.to_text();  // the link's inner <span> inherits its cursor: no hint of its own
  for (const auto& [token, t] : std::vector<std::pair<std::string, std::string>>{{"yes-pointer-div", "pointer-div"},
                                                                                 {"yes-pointer-inner", "pointer-inner"},
                                                                                 {"yes-tree-child", "tree-child"},
                                                                                 {"yes-tree-two", "tree-two"},
                                                                                 {"yes-link", "link-with-span"}})
    click_and_expect(map, token, t);
}

// Chromium answers through DevTools' getEventListeners, Firefox through the listeners its page-realm preload recorded:
// a listener added and removed again is none, a property handler (onclick = ...) is one.
TEST_F(HintsRules, ClickListenersFound) {
  const HintMap map = hints_of("listener.html");
  expect_hints(map,
               {{"yes-click-listener", Reason::ClickListener},
                {"yes-mousedown-listener", Reason::ClickListener},
                {"yes-handler-property", Reason::ClickListener}},
               {"no-key-listener", "no-listener", "no-removed-listener"});
  click_and_expect(map, "yes-click-listener", "listened");
  auto hit = tab().evaluate_in_page("window.listenedHit === true");
  EXPECT_TRUE(hit && hit->get<bool>());

  FindOptions off;
  off.listeners = ListenerProbe::Off;
  auto without = find_hints(tab(), off);
  ASSERT_TRUE(without);
  expect_hints(*without, {}, {"yes-click-listener", "yes-mousedown-listener", "yes-handler-property"});
}

// The probe asks DevTools' command-line getEventListeners in one evaluate; a page global of that name hides
// it (here one that would call everything clickable), and the elements are then asked about one by one.
TEST_F(HintsRules, ClickListenersFoundWhenThePageHasItsOwnGetEventListeners) {
  open("/fx/hints/listener.html");
  ASSERT_TRUE(tab().evaluate_in_page("window.getEventListeners = () => ({click: [{}]}); true"));
  auto map = find_hints(tab());
  ASSERT_TRUE(map) << map.error().describe();
  expect_hints(*map,
               {{"yes-click-listener", Reason::ClickListener},
                {"yes-mousedown-listener", Reason::ClickListener},
                {"yes-handler-property", Reason::ClickListener}},
               {"no-key-listener", "no-listener", "no-removed-listener"});
}

// What a page's scripts listen to for clicks, known from the engine in one question for the whole page (Chromium's
// DOMSnapshot, Firefox's listener recorder), where no other rule knows it: cards whose number is hidden, an inbox's
// rows and the star and trash icons bound in each, and a list's one listener acting for the two spans of its item,
// each a target of its own while the item holding them is none. Each label's click reaches its element.
TEST_F(HintsRules, WhatAPageListensToForClicksGetsALabel) {
  const HintMap map = hints_of("listening.html");
  std::map<std::string, Reason> positives = {{"yes-reply", Reason::CursorPointer},
                                             {"yes-forward", Reason::CursorPointer}};
  for (const char* token : {"yes-card-1", "yes-card-2", "yes-card-3", "yes-row-1", "yes-row-2", "yes-star-1",
                            "yes-star-2", "yes-trash-1", "yes-trash-2"}) {
    positives[token] = Reason::ClickListener;
  }
  expect_hints(map, positives, {"no-message-from-carol"});
  for (const auto& [token, t] : std::vector<std::pair<std::string, std::string>>{{"yes-card-2", "card-2"},
                                                                                 {"yes-row-1", "row-1"},
                                                                                 {"yes-star-2", "star-2"},
                                                                                 {"yes-trash-1", "trash-1"},
                                                                                 {"yes-forward", "forward"}}) {
    click_and_expect(map, token, t);
  }
  auto forwarded = tab().evaluate_in_page("window.replied");
  ASSERT_TRUE(forwarded);
  EXPECT_EQ(*forwarded, "forward");
}

TEST_F(HintsRules, ScrollsAnElementIntoViewBeforeClicking) {
  const HintMap map = hints_of("rules.html");
  const Hint& link = hint_for(map, "yes-link");
  ASSERT_TRUE(tab().evaluate_in_page("window.scrollTo(0, 0); document.body.style.paddingTop = '1500px'; true"));
  auto clicked = click_label(tab(), map, link.label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  EXPECT_TRUE(clicked->scrolled);
  const auto entry = wait_for("click", "link");
  ASSERT_TRUE(entry.is_object());
  EXPECT_TRUE(entry["trusted"].get<bool>());
}

// Firefox's warning before a form goes from a secure page (this loopback one) to an http address stopped the page
// unseen, and the click's input went unanswered until its timeout (src/launch/firefox.cpp): the form is sent.
TEST_F(HintsRules, AFormSentFromASecurePageToAnHttpAddressGoes) {
  const HintMap map = hints_of("form-out.html");
  const std::uint64_t before = tab().page_generation();
  auto clicked = click_label(tab(), map, hint_for(map, "yes-send").label);
  ASSERT_TRUE(clicked) << clicked.error().describe();
  (void)tab().settle(std::chrono::milliseconds{3000});
  EXPECT_GT(tab().page_generation(), before) << "the form was not sent";
}

}  // namespace
}  // namespace vimgpt::hints
