// Link hints without a browser: Vimium's label algorithm, matching a model's reply, the hint map's
// outputs, and labels drawn onto a frame.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <regex>
#include <set>

#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {
namespace {

// The hint library (src/hints/js/rules.js) names its reasons by number; those numbers are Reason's values.
TEST(HintLibrary, ReasonCodesAreTheReasonEnumsValues) {
  const std::string source(detail::library_source());
  std::smatch codes;
  ASSERT_TRUE(
      std::regex_search(source, codes,
                        std::regex(R"(const RULE = (\d+), CLASSNAME = (\d+), SCROLL = (\d+), TABINDEX = (\d+), )"
                                   R"(POINTER = (\d+), LISTENER = (\d+), OPENS = (\d+), DELEGATED = (\d+);)")));
  const Reason order[] = {Reason::Rule,          Reason::ClassName,     Reason::Scrollable, Reason::TabIndex,
                          Reason::CursorPointer, Reason::ClickListener, Reason::Opens,      Reason::Delegated};
  for (std::size_t i = 0; i < std::size(order); ++i) {
    EXPECT_EQ(std::stoi(codes[i + 1]), static_cast<int>(order[i])) << to_string(order[i]);
  }
}

std::string joined(const std::vector<std::string>& labels) {
  std::string out;
  for (const auto& label : labels) out += (out.empty() ? "" : " ") + label;
  return out;
}

TEST(HintLabels, MatchVimiumKnownOutputs) {
  EXPECT_EQ(joined(label_strings(3)), "a d s");
  EXPECT_EQ(joined(label_strings(15)), "a sa c d e f g h j k l m p ss w");
  EXPECT_EQ(joined(label_strings(1)), "s");
  EXPECT_TRUE(label_strings(0).empty());
}

TEST(HintLabels, NumberedMarksCountFromZeroInTheHintsOrder) {
  EXPECT_EQ(joined(label_strings(12, LabelStyle::Numbers)), "0 1 2 3 4 5 6 7 8 9 10 11");
  EXPECT_EQ(joined(label_strings(3, LabelStyle::Letters)), "a d s");
  EXPECT_TRUE(label_strings(0, LabelStyle::Numbers).empty());
}

void expect_prefix_free(std::size_t count, std::size_t short_len, std::size_t long_len) {
  const auto labels = label_strings(count);
  ASSERT_EQ(labels.size(), count);
  const std::set<std::string> unique(labels.begin(), labels.end());
  EXPECT_EQ(unique.size(), count) << "duplicate labels for n=" << count;
  for (const auto& a : labels) {
    EXPECT_TRUE(a.size() == short_len || a.size() == long_len) << a << " for n=" << count;
    EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](char c) { return kAlphabet.find(c) != std::string_view::npos; }));
    for (const auto& b : labels) {
      if (&a != &b) {
        EXPECT_NE(b.rfind(a, 0), 0u) << a << " is a prefix of " << b << " for n=" << count;
      }
    }
  }
}

TEST(HintLabels, AreUniquePrefixFreeAndShortest) {
  expect_prefix_free(1, 1, 1);
  expect_prefix_free(14, 1, 1);   // exactly the alphabet
  expect_prefix_free(15, 1, 2);   // one character gives up its single-letter label
  expect_prefix_free(196, 2, 2);  // 14 * 14: every label has two characters
  expect_prefix_free(197, 2, 3);  // one more needs three characters somewhere
  EXPECT_EQ(label_strings(14).size(), 14u);
  const auto labels197 = label_strings(197);
  // Vimium expands one more two-letter prefix ("ss") and takes the first two of its children.
  EXPECT_EQ(std::count_if(labels197.begin(), labels197.end(), [](const auto& l) { return l.size() == 3; }), 2);
  EXPECT_EQ(std::count_if(labels197.begin(), labels197.end(), [](const auto& l) { return l.size() == 2; }), 195);
}

TEST(HintLabels, OneLetterAlphabetGivesNoneInsteadOfLooping) {
  EXPECT_TRUE(label_strings(5, "a").empty());
}

TEST(HintLabels, NormalizesModelReplies) {
  EXPECT_EQ(normalize_label("AB"), "ab");
  EXPECT_EQ(normalize_label("[AB]"), "ab");
  EXPECT_EQ(normalize_label("'ab'"), "ab");
  EXPECT_EQ(normalize_label("  \"Ab\"\n"), "ab");
  EXPECT_EQ(normalize_label("(`[sa]`)"), "sa");
  EXPECT_EQ(normalize_label("   "), "");
}

HintMap sample_map() {
  std::vector<Hint> hints;
  const auto labels = label_strings(15);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    Hint hint;
    hint.label = labels[i];
    std::transform(hint.label.begin(), hint.label.end(), hint.label.begin(), ::toupper);
    hint.rect = {10.0 * static_cast<double>(i), 20, 50, 16};
    hint.tag = "a";
    hint.role = "link";
    hint.text = "Link " + std::to_string(i);
    hint.href = "http://127.0.0.1/" + std::to_string(i);
    hint.index = static_cast<int>(i);
    hints.push_back(hint);
  }
  hints[3].tag = "input";
  hints[3].role = "textbox";
  hints[3].href.clear();
  hints[3].input_type = "search";
  hints[3].placeholder = "Search";
  hints[3].name = "q";
  hints[3].value = FieldValue::Empty;
  hints[4].reason = Reason::CursorPointer;
  return HintMap(7, std::move(hints), 1080, 720);
}

TEST(HintMap, FindsLabelsCaseInsensitivelyThroughWrapping) {
  const HintMap map = sample_map();
  ASSERT_NE(map.find("sa"), nullptr);
  EXPECT_EQ(map.find("[SA]")->label, "SA");
  EXPECT_EQ(map.find(" 'ss' ")->label, "SS");
  EXPECT_EQ(map.find("s"), nullptr);  // "S" is not a label once "SA" and "SS" exist
  EXPECT_EQ(map.find(""), nullptr);
  EXPECT_EQ(map.find("zz"), nullptr);
}

TEST(HintMap, SuggestsNearLabels) {
  const HintMap map = sample_map();
  const auto near = map.near("SD", 3);
  ASSERT_EQ(near.size(), 3u);
  EXPECT_TRUE(near[0] == "SA" || near[0] == "SS") << near[0];
  EXPECT_TRUE(near[1] == "SA" || near[1] == "SS") << near[1];
  EXPECT_EQ(map.near("x", 100).size(), map.size());
}

TEST(HintMap, SearchRanksHintsByTheWordsTheyHold) {
  const auto hint = [](std::string label, std::string role, std::string text, std::string href) {
    Hint made;
    made.label = std::move(label);
    made.role = std::move(role);
    made.text = std::move(text);
    made.href = std::move(href);
    return made;
  };
  std::vector<Hint> hints = {hint("A", "link", "Pricing", "/pricing"), hint("S", "link", "Sign up", "/join"),
                             hint("D", "button", "Sign in", ""), hint("F", "textbox", "", "")};
  hints[3].input_type = "password";
  hints[3].placeholder = "Password";
  hints[3].name = "pw";
  hints[3].value = FieldValue::Empty;
  const HintMap map(1, std::move(hints));
  // The hints holding every word, when any does; ASCII case folded. "in" begins no word of "Pricing" or "/join".
  const auto sign_in = map.search("SIGN In", 10);
  ASSERT_EQ(sign_in.size(), 1u);
  EXPECT_EQ(sign_in[0]->label, "D");
  // Else the most words first, then label order.
  const auto some = map.search("sign pricing", 10);
  ASSERT_EQ(some.size(), 3u);
  EXPECT_EQ(some[0]->label, "A");
  EXPECT_EQ(some[1]->label, "S");
  EXPECT_EQ(some[2]->label, "D");
  EXPECT_EQ(map.search("/join", 10).front()->label, "S");     // by link target
  EXPECT_EQ(map.search("password", 10).front()->label, "F");  // by type and placeholder
  EXPECT_EQ(map.search("pw", 10).size(), 1u);                 // by field name
  EXPECT_EQ(map.search("sign", 1).size(), 1u);                // the limit
  EXPECT_TRUE(map.search("   ", 10).empty());
  EXPECT_TRUE(map.search("zebra", 10).empty());
  EXPECT_EQ(words_in(search_words("Sign IN"), "sign in to continue"), 2u);
  // A word shown beats the same word in a link target: every link of a page on port 57045 holds "57", and every
  // link on 127.0.0.1 holds "1".
  std::vector<Hint> items;
  for (const int n : {1, 7, 57}) {
    items.push_back(hint(std::to_string(n), "link", "Item " + std::to_string(n),
                         "http://127.0.0.1:57045/item/" + std::to_string(n)));
  }
  const HintMap dense(1, std::move(items));
  for (const std::string n : {"57", "1"}) {
    const auto item = dense.search("item " + n, 10);
    ASSERT_EQ(item.size(), 1u) << n;
    EXPECT_EQ(item[0]->label, n);
  }
  const auto some_words = dense.search("item 57 zebra", 10);  // none holds every word: shown words first
  ASSERT_EQ(some_words.size(), 3u);
  EXPECT_EQ(some_words[0]->label, "57");
  EXPECT_EQ(some_words[1]->label, "1");
  EXPECT_EQ(some_words[2]->label, "7");
  EXPECT_EQ(to_text(map.hints()[3]) + "\n", map.to_text().substr(map.to_text().rfind("[F]")));
}

TEST(HintMap, JsonCarriesWhatProgramsNeed) {
  const auto json = sample_map().to_json();
  ASSERT_EQ(json.size(), 15u);
  EXPECT_EQ(json[0]["label"], "A");
  EXPECT_EQ(json[0]["rect"]["width"], 50.0);
  EXPECT_EQ(json[0]["tag"], "a");
  EXPECT_EQ(json[0]["role"], "link");
  EXPECT_EQ(json[0]["href"], "http://127.0.0.1/0");
  EXPECT_FALSE(json[0].contains("type"));
  EXPECT_EQ(json[3]["type"], "search");
  EXPECT_EQ(json[3]["placeholder"], "Search");
  EXPECT_EQ(json[3]["name"], "q");
  EXPECT_EQ(json[3]["empty"], true);
  EXPECT_EQ(json[4]["reason"], "cursor-pointer");
}

TEST(HintMap, TextListsLabelRoleNameHref) {
  const std::string text = sample_map().to_text();
  EXPECT_EQ(to_text(sample_map().hints()[0]), "[A] link \"Link 0\" -> http://127.0.0.1/0");
  // In the list, the fourteen links to targets of one shape leave them out (AListsLinksLeaveOutTargetsOfOneShape).
  EXPECT_NE(text.find("[A] link \"Link 0\"\n[SA] link \"Link 1\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[D] textbox (search) \"Link 3\" placeholder \"Search\" empty\n"), std::string::npos) << text;
  // Filled, the field shows what it holds, not its placeholder: the line does not say it either.
  Hint filled = sample_map().hints()[3];
  filled.value = FieldValue::Filled;
  EXPECT_EQ(to_text(filled, ""), "[D] textbox (search) \"Link 3\"");
}

// A target is written where the text does not say it: every word of the path in the text (one-letter folders aside)
// says it; a word missing, the site's root, a fragment or another site does not. A textbox of type text is not
// told "(text)".
TEST(HintMap, LinkTargetsAreLeftOutWhereTheTextSaysThem) {
  const auto line = [](std::string text, std::string href, std::string role = "link") {
    Hint hint;
    hint.label = "A";
    hint.tag = role == "link" ? "a" : "input";
    hint.role = role;
    hint.text = std::move(text);
    hint.href = std::move(href);
    if (role != "link") {
      hint.input_type = "text";
      hint.value = FieldValue::Filled;
    }
    return to_text(hint, "http://127.0.0.1/shop");
  };
  EXPECT_EQ(line("Help", "http://127.0.0.1/help"), "[A] link \"Help\"");
  EXPECT_EQ(line("Living room", "http://127.0.0.1/c/living"), "[A] link \"Living room\"");
  EXPECT_EQ(line("Item 64", "http://127.0.0.1/item/64"), "[A] link \"Item 64\"");
  EXPECT_EQ(line("ABOUT us", "http://127.0.0.1/about-us/"), "[A] link \"ABOUT us\"");
  EXPECT_EQ(line("Sign in", "http://127.0.0.1/account"), "[A] link \"Sign in\" -> /account");
  EXPECT_EQ(line("Item 64", "http://127.0.0.1/item/65"), "[A] link \"Item 64\" -> /item/65");
  EXPECT_EQ(line("Walnut lamp", "http://127.0.0.1/product/1"), "[A] link \"Walnut lamp\" -> /product/1");
  EXPECT_EQ(line("Home", "http://127.0.0.1/"), "[A] link \"Home\" -> /");
  EXPECT_EQ(line("Help", "http://127.0.0.1/shop#help"), "[A] link \"Help\" -> #help");
  EXPECT_EQ(line("Help", "https://help.example/help"), "[A] link \"Help\" -> help.example");
  EXPECT_EQ(line("", "http://127.0.0.1/help"), "[A] link -> /help");
  EXPECT_EQ(line("Name", "", "textbox"), "[A] textbox \"Name\"");
}

// A page of results: three or more links to targets of one shape ("/product/#"), each with its own text, leave their
// targets out; two such links, or alike texts ("Read more" under each post), keep theirs; other links are as before.
TEST(HintMap, AListsLinksLeaveOutTargetsOfOneShape) {
  const auto link = [](std::string label, std::string text, const std::string& path) {
    Hint hint;
    hint.label = std::move(label);
    hint.tag = "a";
    hint.role = "link";
    hint.text = std::move(text);
    hint.href = "http://127.0.0.1" + path;
    return hint;
  };
  const auto text_of = [](std::vector<Hint> hints) {
    return HintMap(1, std::move(hints)).to_text("http://127.0.0.1/");
  };
  const std::string results = text_of({link("A", "Sign in", "/account"), link("B", "Walnut lamp", "/product/1"),
                                       link("C", "Oak shelf", "/product/2"), link("D", "Wool rug", "/p/3?ref=x9"),
                                       link("E", "Glass vase", "/product/12"), link("F", "Pine table", "/item?id=5"),
                                       link("G", "Velvet sofa", "/item?id=6")});
  EXPECT_EQ(results,
            "[A] link \"Sign in\" -> /account\n[B] link \"Walnut lamp\"\n[C] link \"Oak shelf\"\n"
            "[D] link \"Wool rug\" -> /p/3?ref=x9\n[E] link \"Glass vase\"\n[F] link \"Pine table\" -> /item?id=5\n"
            "[G] link \"Velvet sofa\" -> /item?id=6\n");
  const std::string posts = text_of({link("A", "Read more", "/post/1"), link("B", "Read more", "/post/2"),
                                     link("C", "READ MORE", "/post/3"), link("D", "Dogs", "/post/4")});
  EXPECT_EQ(posts,
            "[A] link \"Read more\" -> /post/1\n[B] link \"Read more\" -> /post/2\n"
            "[C] link \"READ MORE\" -> /post/3\n[D] link \"Dogs\"\n");
  // The first `limit` lines, each as the whole list writes it.
  EXPECT_EQ(HintMap(1, {link("A", "One", "/x/1"), link("B", "Two", "/x/2"), link("C", "Six", "/x/3")})
                .to_text("http://127.0.0.1/", 2),
            "[A] link \"One\"\n[B] link \"Two\"\n");
}

TEST(HintMap, LinkTargetsOnThePagesOwnOriginAreWrittenAsPaths) {
  const std::string text = sample_map().to_text("http://127.0.0.1/list?page=2#top");
  EXPECT_NE(text.find("[A] link \"Link 0\"\n"), std::string::npos) << text;  // the text says where: "0"
  EXPECT_EQ(link_target("http://127.0.0.1/a/b?c=d#e", "http://127.0.0.1/x"), "/a/b?c=d#e");
  EXPECT_EQ(link_target("http://127.0.0.1/list?page=2#reviews", "http://127.0.0.1/list?page=2#top"), "#reviews");
  EXPECT_EQ(link_target("http://127.0.0.1", "http://127.0.0.1/x"), "/");
  EXPECT_EQ(link_target("http://127.0.0.1?q=1", "http://127.0.0.1/x"), "/?q=1");
  // Another origin (a port, a scheme, a host): the site, without scheme, user or "www."; another scheme, or no page
  // to be relative to: the whole address.
  EXPECT_EQ(link_target("http://127.0.0.1:81/a", "http://127.0.0.1/x"), "127.0.0.1:81");
  EXPECT_EQ(link_target("https://127.0.0.1/a", "http://127.0.0.1/x"), "127.0.0.1");
  EXPECT_EQ(link_target("http://127.0.0.10/a?b#c", "http://127.0.0.1/x"), "127.0.0.10");
  EXPECT_EQ(link_target("https://me@www.facebook.com/minecraft", "http://127.0.0.1/x"), "facebook.com");
  EXPECT_EQ(link_target("http://127.0.0.1/a", ""), "http://127.0.0.1/a");
  EXPECT_EQ(link_target("mailto:a@b.c", "http://127.0.0.1/x"), "mailto:a@b.c");
}

TEST(HintMap, ParsesDrawModes) {
  EXPECT_EQ(*parse_draw_mode("overlay"), DrawMode::Overlay);
  EXPECT_EQ(*parse_draw_mode("image"), DrawMode::Image);
  EXPECT_EQ(*parse_draw_mode("both-frames"), DrawMode::BothFrames);
  const auto bad = parse_draw_mode("sideways");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::InvalidArgument);
}

void append(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

browser::Screenshot white_png(int width, int height) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * 3, 255);
  browser::Screenshot shot;
  stbi_write_png_to_func(append, &shot.bytes, width, height, 3, pixels.data(), width * 3);
  shot.width = width;
  shot.height = height;
  return shot;
}

struct Decoded {
  std::vector<unsigned char> pixels;
  int width = 0, height = 0;
  [[nodiscard]] const unsigned char* at(int x, int y) const {
    return pixels.data() + (static_cast<std::size_t>(y) * width + x) * 3;
  }
};

Decoded decode(const browser::Screenshot& shot) {
  Decoded out;
  int channels = 0;
  unsigned char* data =
      stbi_load_from_memory(reinterpret_cast<const unsigned char*>(shot.bytes.data()),
                            static_cast<int>(shot.bytes.size()), &out.width, &out.height, &channels, 3);
  if (data) out.pixels.assign(data, data + static_cast<std::size_t>(out.width) * out.height * 3);
  stbi_image_free(data);
  return out;
}

bool is_marker_yellow(const unsigned char* p) {
  return p[0] > 230 && p[1] > 180 && p[2] > 50 && p[2] < 160;
}
bool is_dark_text(const unsigned char* p) {
  return p[0] < 120 && p[1] < 110 && p[2] < 60;
}

TEST(HintDrawing, PaintsVimiumMarkersWithDarkLettersAtTheElement) {
  std::vector<Hint> hints(1);
  hints[0].label = "SA";
  hints[0].rect = {100, 50, 80, 20};
  const HintMap map(1, hints, 400, 300);
  auto labelled = draw_labels(white_png(400, 300), map);
  ASSERT_TRUE(labelled) << labelled.error().describe();
  const Decoded image = decode(*labelled);
  ASSERT_EQ(image.width, 400);
  EXPECT_TRUE(is_marker_yellow(image.at(102, 52)));  // inside the border, in the left padding
  EXPECT_EQ(image.at(90, 52)[0], 255);               // clear of the marker and its shadow: untouched
  int dark = 0;
  for (int y = 50; y < 64; ++y)
    for (int x = 100; x < 130; ++x) dark += is_dark_text(image.at(x, y)) ? 1 : 0;
  EXPECT_GT(dark, 15) << "the letters should be drawn in dark ink";
  EXPECT_FALSE(is_marker_yellow(image.at(200, 200)));
}

TEST(HintDrawing, NudgesOverlappingLabelsApartAndScalesWithTheFrame) {
  std::vector<Hint> hints(2);
  hints[0].label = "A";
  hints[0].rect = {50, 50, 40, 20};
  hints[1].label = "D";
  hints[1].rect = {51, 51, 40, 20};  // would sit on top of A
  const HintMap map(1, hints, 200, 150);
  auto labelled = draw_labels(white_png(400, 300), map);  // a 2x device-pixel frame
  ASSERT_TRUE(labelled) << labelled.error().describe();
  const Decoded image = decode(*labelled);
  // Both markers are yellow somewhere on row y=104 (2x scale), and there are two separate yellow runs.
  int runs = 0;
  bool inside = false;
  for (int x = 90; x < 260; ++x) {
    const bool yellow = is_marker_yellow(image.at(x, 104));
    if (yellow && !inside) ++runs;
    inside = yellow;
  }
  EXPECT_EQ(runs, 2);
}

TEST(HintDrawing, RejectsUndecodableFramesAndMissingFonts) {
  browser::Screenshot junk;
  junk.bytes = "not an image";
  EXPECT_EQ(draw_labels(junk, HintMap()).error().kind, ErrorKind::Parse);
  EXPECT_EQ(draw_labels(white_png(10, 10), HintMap(), "/nonexistent/font.ttf").error().kind, ErrorKind::Io);
}

TEST(HintDrawing, KeepsJpegFramesJpeg) {
  std::vector<unsigned char> pixels(64 * 64 * 3, 255);
  browser::Screenshot jpeg;
  jpeg.format = browser::ImageFormat::Jpeg;
  stbi_write_jpg_to_func(append, &jpeg.bytes, 64, 64, 3, pixels.data(), 90);
  std::vector<Hint> hints(1);
  hints[0].label = "K";
  hints[0].rect = {4, 4, 10, 10};
  auto labelled = draw_labels(jpeg, HintMap(1, hints, 64, 64));
  ASSERT_TRUE(labelled) << labelled.error().describe();
  EXPECT_EQ(labelled->format, browser::ImageFormat::Jpeg);
  EXPECT_EQ(static_cast<unsigned char>(labelled->bytes[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(labelled->bytes[1]), 0xD8);
}

}  // namespace
}  // namespace vimgpt::hints
