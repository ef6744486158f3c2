// The open families' dialects: the catalogue names them as servers do, images are sized so the servers' resize
// leaves them alone, every dialect's reply forms read into vimgpt's actions, and points come back to the frame
// pixel they were taken from.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>

#include "support/dialect_fake.h"
#include "vision/dialect.h"
#include "vision/provider.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

using detail::PointFrame;

const Dialect& family(std::string_view name) {
  const Dialect* dialect = find_dialect(name);
  if (dialect == nullptr) throw std::runtime_error("no family " + std::string(name));
  return *dialect;
}

// Reference sizes computed with the authors' own smart_resize (microsoft/fara src/fara/_prompts.py, bytedance/UI-TARS
// codes/ui_tars/action_parser.py: Python's round, so 36.5 goes to 36) for these inputs.
TEST(SmartResize, MatchesTheAuthorsFunction) {
  const ResizeRule qwen25{28, 3136, 12845056};
  const ResizeRule tars{28, 78400, 12845056};
  const ResizeRule qwen3{32, 65536, 16777216};
  EXPECT_EQ(smart_resize({768, 512}, qwen25), (Size{756, 504}));
  EXPECT_EQ(smart_resize({1920, 1080}, qwen25), (Size{1932, 1092}));
  EXPECT_EQ(smart_resize({1022, 714}, qwen25), (Size{1008, 728}));  // halves to even, both sides
  EXPECT_EQ(smart_resize({70, 30}, tars), (Size{448, 196}));        // raised to min_pixels
  EXPECT_EQ(smart_resize({4000, 3000}, qwen3), (Size{4000, 3008}));
  EXPECT_EQ(smart_resize({1440, 900}, qwen3), (Size{1440, 896}));
  EXPECT_EQ(smart_resize({768, 512}, qwen3), (Size{768, 512}));
}

TEST(SmartResize, FramesAreSizedSoTheServerChangesNothing) {
  for (const char* name :
       {"qwen2.5-vl", "qwen3-vl", "qwen3.5", "fara", "fara-1.5", "ui-tars-1.5", "gui-owl-1.5", "glm-v"}) {
    const Dialect& dialect = family(name);
    for (const Size viewport : {Size{1080, 720}, Size{1280, 800}, Size{1440, 900}, Size{1366, 768}}) {
      const int width = unchanged_width(viewport, 768, dialect.resize);
      const int height = static_cast<int>(std::lround(viewport.height * (static_cast<double>(width) / viewport.width)));
      EXPECT_LE(width, 768);
      EXPECT_EQ(smart_resize({width, height}, dialect.resize), (Size{width, height}))
          << name << " " << viewport.width << "x" << viewport.height << " -> " << width;
    }
  }
}

TEST(DialectCatalogue, NamesMatchAsServersServeThem) {
  for (const auto& [served, expected] :
       std::vector<std::pair<std::string, std::string>>{{"qwen3-vl:8b", "qwen3-vl"},
                                                        {"Qwen/Qwen3-VL-8B-Instruct", "qwen3-vl"},
                                                        {"microsoft/Fara-7B", "fara"},
                                                        {"/models/microsoft_Fara-7B-Q4_K_M.gguf", "fara"},
                                                        {"UI-TARS-1.5-7B.Q8_0.gguf", "ui-tars-1.5"},
                                                        {"qwen3-vl-8b-instruct-UD-Q4_K_XL.gguf", "qwen3-vl"},
                                                        {"qwen2.5vl:7b", "qwen2.5-vl"},
                                                        {"mPLUG/GUI-Owl-1.5-8B-Instruct", "gui-owl-1.5"},
                                                        {"GUI-Owl-1.5-32B-Think", "gui-owl-1.5"},
                                                        {"/models/Fara1.5-9B-Q4_K_M.gguf", "fara-1.5"},
                                                        {"zai-org/GLM-4.6V-FP8", "glm-v"},
                                                        {"Hcompany/Holo-3.1-35B-A3B-FP8", "holo3"},
                                                        {"Holo3-35B-A3B.Q4_K_M.gguf", "holo3"},
                                                        {"holo3-1-35b-a3b", "holo3"},
                                                        {"allenai/MolmoWeb-8B", "molmoweb"},
                                                        {"MolmoWeb-4B", "molmoweb"},
                                                        {"Qwen/Qwen3.5-27B-FP8", "qwen3.5"},
                                                        {"qwen3.5:9b", "qwen3.5"},
                                                        {"Qwen3.5-35B-A3B-Q4_K_M.gguf", "qwen3.5"},
                                                        {"Hcompany/Holo4-27B-FP8", "holo3"}}) {
    const ModelSpec* spec = find_model(served);
    ASSERT_NE(spec, nullptr) << served;
    ASSERT_TRUE(spec->dialect.has_value()) << served;
    EXPECT_EQ(spec->dialect->family, expected) << served;
    EXPECT_EQ(spec->provider, Provider::Compatible) << served;
    EXPECT_FALSE(spec->sources.empty()) << served;
  }
  // Never by prefix, and a GGUF name only for open families.
  EXPECT_EQ(find_model("UI-TARS-1.5"), nullptr);
  EXPECT_EQ(find_model("qwen3-vl"), nullptr);
  EXPECT_EQ(find_model("gpt-6.1-terra-Q4_K_M.gguf"), nullptr);
  // A thinking model's larger reply amends its family's dialect, the rest kept.
  const ModelSpec* thinking = find_model("qwen3-vl:8b-thinking");
  ASSERT_NE(thinking, nullptr);
  EXPECT_GT(thinking->dialect->reply_tokens, find_model("qwen3-vl:8b")->dialect->reply_tokens);
  EXPECT_EQ(thinking->dialect->resize.factor, 32);
  EXPECT_FALSE(thinking->dialect->system_prompt.empty());
}

// A reply as each family writes it, with the point in its own space.
std::string reply_with(const Dialect& dialect, double x, double y) {
  const std::string point = std::to_string(x) + ", " + std::to_string(y);
  if (dialect.kind == DialectKind::UiTars) {
    return "Thought: the blue square is the target.\nAction: click(start_box='(" + point + ")')";
  }
  if (dialect.kind == DialectKind::MolmoWeb) {
    return Json{{"thought", "the blue square is the target"}, {"action", {{"name", "click"}, {"x", x}, {"y", y}}}}
        .dump();
  }
  if (dialect.xml_calls) {
    return "The blue square is there.\n<tool_call>\n<function=computer_use>\n<parameter=action>\nleft_click\n"
           "</parameter>\n<parameter=coordinate>\n[" +
           point + "]\n</parameter>\n</function>\n</tool_call>";
  }
  if (dialect.kind == DialectKind::HoloJson) {
    return Json{{"note", nullptr},
                {"thought", "the blue square is the target"},
                {"tool_call", {{"tool_name", "click"}, {"element", "blue square"}, {"x", x}, {"y", y}}}}
        .dump();
  }
  return "The blue square is there.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": "
         "\"left_click\", \"coordinate\": [" +
         point + "]}}\n</tool_call>";
}

TEST(DialectPoints, EveryFramePixelComesBackExactly) {
  for (const char* name :
       {"qwen2.5-vl", "qwen3-vl", "qwen3.5", "fara", "fara-1.5", "ui-tars-1.5", "gui-owl-1.5", "holo3", "molmoweb"}) {
    const Dialect& dialect = family(name);
    // The frame the agent acts on, and the image as sent: unchanged, then one the server would resize.
    for (const PointFrame frames : {PointFrame{{756, 504}, {756, 504}}, PointFrame{{768, 512}, {1080, 720}}}) {
      for (const auto& [x, y] : {std::pair{0.0, 0.0}, std::pair{377.5, 251.25}, std::pair{755.0, 503.0}}) {
        const auto model = detail::from_frame(dialect, frames, x, y);
        auto read = detail::read_dialect_reply(dialect, reply_with(dialect, model.x, model.y), "", frames);
        ASSERT_TRUE(read) << name << ": " << read.error().message;
        ASSERT_TRUE(read->action.contains("click_at")) << read->action.dump();
        // MolmoWeb's harness keeps a point a pixel inside the frame's edges ([1, side - 2]).
        const bool kept_inside = dialect.points == PointSpace::Percent;
        const double want_x = kept_inside ? std::clamp(x, 1.0, frames.frame.width - 2.0) : x;
        const double want_y = kept_inside ? std::clamp(y, 1.0, frames.frame.height - 2.0) : y;
        EXPECT_NEAR(read->action["click_at"][0].get<double>(), want_x, 1e-4) << name;
        EXPECT_NEAR(read->action["click_at"][1].get<double>(), want_y, 1e-4) << name;
        EXPECT_FALSE(read->thoughts.empty());
      }
    }
  }
}

TEST(DialectPoints, UnchangedImagesNeedNoScaling) {
  // A 756x504 frame sent as it is to a factor-28 server: model pixels are frame pixels.
  const PointFrame frames{{756, 504}, {756, 504}};
  const auto point = detail::to_frame(family("fara"), frames, 123, 456);
  EXPECT_DOUBLE_EQ(point.x, 123);
  EXPECT_DOUBLE_EQ(point.y, 456);
  // Qwen3-VL's thousandths are of the image, whatever its size.
  const auto qwen3 = detail::to_frame(family("qwen3-vl"), frames, 500, 1000);
  EXPECT_DOUBLE_EQ(qwen3.x, 378);
  EXPECT_DOUBLE_EQ(qwen3.y, 504);
}

Json read(std::string_view name, std::string_view text, std::string_view reasoning = "") {
  const PointFrame frames{{756, 504}, {756, 504}};
  auto reply = detail::read_dialect_reply(family(name), text, reasoning, frames);
  if (!reply) throw std::runtime_error(reply.error().message);
  return reply->action;
}

TEST(ComputerUseDialect, ReadsEveryActionOfTheTools) {
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"double_click\", "
                 "\"coordinate\": [10, 20]}}</tool_call>"),
            (Json{{"double_click", {10.0, 20.0}}}));
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"triple_click\", "
                 "\"coordinate\": [10, 20]}}</tool_call>"),
            (Json{{"double_click", {10.0, 20.0}}}));
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"right_click\", "
                 "\"coordinate\": [10, 20]}}</tool_call>"),
            (Json{{"right_click", {10.0, 20.0}}}));
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"mouse_move\", "
                 "\"coordinate\": [10, 20]}}</tool_call>"),
            (Json{{"hover", {10.0, 20.0}}}));
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"key\", "
                 "\"keys\": [\"ctrl\", \"a\"]}}</tool_call>"),
            (Json{{"key", "ctrl+a"}}));
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"scroll\", "
                 "\"pixels\": -300}}</tool_call>"),
            (Json{{"scroll", "down"}}));
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"type\", "
                 "\"text\": \"hello\"}}</tool_call>"),
            (Json{{"type", "hello"}, {"enter", false}}));
  EXPECT_EQ(read("qwen3-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"answer\", "
                 "\"text\": \"42\"}}</tool_call>"),
            (Json{{"done", "42"}}));
  EXPECT_EQ(read("qwen3-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"wait\", "
                 "\"time\": 30}}</tool_call>"),
            (Json{{"wait", 10.0}}));
  // Where the mouse is: a drag from it (the last mouse_move or click) to the coordinate, and a click with no coordinate
  // at it, as Qwen's harness does them.
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click_drag\", "
                 "\"coordinate\": [30, 40]}}</tool_call>"),
            (Json{{"drag", "pointer"}, {"to", {30.0, 40.0}}}));
  EXPECT_EQ(read("qwen3-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\"}}</tool_call>"),
            (Json{{"click_at", "pointer"}}));
  // A scroll at a point turns the wheel there.
  EXPECT_EQ(read("qwen2.5-vl",
                 "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"scroll\", "
                 "\"coordinate\": [10, 20], \"pixels\": -300}}</tool_call>"),
            (Json{{"scroll", "down"}, {"in", {10.0, 20.0}}}));
  // What vimgpt cannot do is a step error in words, never a crash or a silent skip.
  const Json middle = read("qwen2.5-vl",
                           "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": "
                           "\"middle_click\", \"coordinate\": [1, 2]}}</tool_call>");
  ASSERT_TRUE(middle.contains("unsupported"));
  EXPECT_NE(middle["unsupported"].get<std::string>().find("middle_click"), std::string::npos);
}

TEST(ComputerUseDialect, FaraTypesIntoAPointAndAnswersWithItsThoughts) {
  EXPECT_EQ(read("fara",
                 "I type the query.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": "
                 "\"type\", \"text\": \"paris\", \"coordinate\": [100, 50]}}\n</tool_call>"),
            (Json{{"actions", {{{"click_at", {100.0, 50.0}}}, {{"type", "paris"}, {"enter", true}}}}}));
  EXPECT_EQ(read("fara",
                 "The opening hours are 9 to 6.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": "
                 "{\"action\": \"terminate\", \"status\": \"success\"}}\n</tool_call>"),
            (Json{{"done", "The opening hours are 9 to 6."}}));
  EXPECT_EQ(read("fara",
                 "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"web_search\", "
                 "\"query\": \"louvre hours\"}}\n</tool_call>"),
            (Json{{"navigate", "https://www.bing.com/search?q=louvre+hours"}}));
  EXPECT_EQ(read("fara",
                 "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"history_back\"}}"
                 "\n</tool_call>"),
            (Json{{"back", true}}));
  // Python's literal form, which Fara's harness also reads.
  EXPECT_EQ(read("fara",
                 "<tool_call>\n{'name': 'computer_use', 'arguments': {'action': 'visit_url', 'url': "
                 "'https://example.com'}}\n</tool_call>"),
            (Json{{"navigate", "https://example.com"}}));
}

// Fara1.5 (microsoft/fara fara15_agent.py): the answer in terminate, a question for the person, a search for a
// "URL" with spaces, and the page question its harness hands to another model, which vimgpt has not.
TEST(ComputerUseDialect, Fara15AnswersInItsCallAndAsksThePerson) {
  const auto call = [](const std::string& arguments) {
    return read("fara-1.5",
                "Thinking.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": " + arguments + "}\n</tool_call>");
  };
  EXPECT_EQ(call(R"({"action": "terminate", "answer": "Open until 6 pm."})"), (Json{{"done", "Open until 6 pm."}}));
  EXPECT_EQ(call(R"({"action": "ask_user_question", "question": "Which date?"})"), (Json{{"ask", "Which date?"}}));
  EXPECT_EQ(call(R"({"action": "visit_url", "url": "louvre opening hours"})"),
            (Json{{"navigate", "https://www.bing.com/search?q=louvre+opening+hours"}}));
  EXPECT_TRUE(call(R"({"action": "read_page_answer_question", "question": "When?"})").contains("unsupported"));
  // Its points are on a 1000x1000 grid: the middle of the grid is the middle of the frame.
  EXPECT_EQ(call(R"({"action": "left_click", "coordinate": [500, 500]})"), (Json{{"click_at", {378.0, 252.0}}}));
  EXPECT_NE(family("fara-1.5").tool.dump().find("The screen's resolution is 1000x1000."), std::string::npos);
}

TEST(ComputerUseDialect, ThoughtsFromEveryPlace) {
  const PointFrame frames{{768, 512}, {768, 512}};
  const std::string call =
      "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [500, "
      "500]}}</tool_call>";
  auto tagged =
      detail::read_dialect_reply(family("qwen3-vl"), "<think>the button is central</think>\n" + call, "", frames);
  ASSERT_TRUE(tagged);
  EXPECT_EQ(tagged->thoughts, "the button is central");
  EXPECT_EQ(tagged->action, (Json{{"click_at", {384.0, 256.0}}}));
  // A chat template that opens <think> itself: only the close comes back.
  auto closed = detail::read_dialect_reply(family("qwen3-vl"), "centred</think>" + call, "", frames);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->thoughts, "centred");
  auto field = detail::read_dialect_reply(family("qwen3-vl"), call, "from reasoning_content", frames);
  ASSERT_TRUE(field);
  EXPECT_EQ(field->thoughts, "from reasoning_content");
  auto none = detail::read_dialect_reply(family("qwen3-vl"), "I would click the button.", "", frames);
  EXPECT_FALSE(none);
}

// Qwen3.5's chat template asks for <function=NAME><parameter=KEY>\nvalue\n</parameter>: a value is text where the
// tool says so (a typed "0042" stays "0042"), JSON otherwise, Python's words as it prints them; several lines stay
// several lines. A server that parses the call out (vLLM's qwen3_coder) hands back the JSON form: read alike.
TEST(ComputerUseDialect, Qwen35WritesItsCallsInItsTemplatesXml) {
  const auto xml = [](const std::string& parameters) {
    return read("qwen3.5", "<think>next</think>\nI act.\n<tool_call>\n<function=computer_use>\n" + parameters +
                               "</function>\n</tool_call>");
  };
  EXPECT_EQ(xml("<parameter=action>\ntype\n</parameter>\n<parameter=text>\n0042\n</parameter>\n"),
            (Json{{"type", "0042"}, {"enter", false}}));
  EXPECT_EQ(xml("<parameter=action>\ntype\n</parameter>\n<parameter=text>\nline one\nline two\n</parameter>\n"),
            (Json{{"type", "line one\nline two"}, {"enter", false}}));
  EXPECT_EQ(xml("<parameter=action>\nleft_click\n</parameter>\n<parameter=coordinate>\n[500, 1000]\n</parameter>\n"),
            (Json{{"click_at", {378.0, 504.0}}}));
  EXPECT_EQ(xml("<parameter=action>\nkey\n</parameter>\n<parameter=keys>\n[\"ctrl\", \"l\"]\n</parameter>\n"),
            (Json{{"key", "ctrl+l"}}));
  EXPECT_EQ(xml("<parameter=action>\nscroll\n</parameter>\n<parameter=pixels>\n300\n</parameter>\n"),
            (Json{{"scroll", "up"}}));
  EXPECT_EQ(xml("<parameter=action>\nanswer\n</parameter>\n<parameter=text>\nTrue\n</parameter>\n"),
            (Json{{"done", "True"}}));
  EXPECT_TRUE(xml("<parameter=action>\nmiddle_click\n</parameter>\n").contains("unsupported"));
  EXPECT_EQ(read("qwen3.5",
                 "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", "
                 "\"coordinate\": [0, 0]}}\n</tool_call>"),
            (Json{{"click_at", {0.0, 0.0}}}));
  // The repair prompt asks for the form the family writes.
  EXPECT_NE(detail::dialect_repair_prompt(family("qwen3.5"), "?").find("<function=computer_use>"), std::string::npos);
  EXPECT_THROW(read("qwen3.5", "<tool_call>\n<function=computer_use>\n</function>\n</tool_call>"), std::runtime_error);
}

TEST(UiTarsDialect, ReadsEachPointFormAndAction) {
  // 756x504 is unchanged by its resize: model pixels are frame pixels.
  EXPECT_EQ(read("ui-tars-1.5", "Thought: click it\nAction: click(point='<point>100 200</point>')"),
            (Json{{"click_at", {100.0, 200.0}}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: click it\nAction: click(start_box='<|box_start|>(100,200)<|box_end|>')"),
            (Json{{"click_at", {100.0, 200.0}}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: a box\nAction: left_double(start_box='(100,200,120,220)')"),
            (Json{{"double_click", {110.0, 210.0}}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: x\nAction: right_single(point='<point>1 2</point>')"),
            (Json{{"right_click", {1.0, 2.0}}}));
  EXPECT_EQ(read("ui-tars-1.5",
                 "Thought: x\nAction: drag(start_point='<point>1 2</point>', "
                 "end_point='<point>30 40</point>')"),
            (Json{{"drag", {1.0, 2.0}}, {"to", {30.0, 40.0}}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: x\nAction: hotkey(key='ctrl c')"), (Json{{"key", "ctrl+c"}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: x\nAction: type(content='it\\'s \"me\"\\n')"),
            (Json{{"type", "it's \"me\""}, {"enter", true}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: x\nAction: type(content='Bob's shop')"),
            (Json{{"type", "Bob's shop"}, {"enter", false}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: x\nAction: scroll(point='<point>5 6</point>', direction='down')"),
            (Json{{"scroll", "down"}, {"in", {5.0, 6.0}}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: x\nAction: wait()"), (Json{{"wait", 5}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: found it\nAction: finished(content='9 to 6')"), (Json{{"done", "9 to 6"}}));
  EXPECT_EQ(read("ui-tars-1.5", "Thought: all done here\nAction: finished()"), (Json{{"done", "all done here"}}));
  EXPECT_TRUE(read("ui-tars-1.5", "Thought: x\nAction: scroll(point='<point>5 6</point>', direction='left')")
                  .contains("unsupported"));
  EXPECT_TRUE(
      read("ui-tars-1.5", "Thought: x\nAction: long_press(point='<point>5 6</point>')").contains("unsupported"));
  EXPECT_THROW(read("ui-tars-1.5", "I will click the button"), std::runtime_error);
  // A number past a double's range (dialect_fuzz's find) is no point: an error the model reads, not a crash.
  const PointFrame frames{{756, 504}, {756, 504}};
  const auto huge = detail::read_dialect_reply(
      family("ui-tars-1.5"), "Thought: x\nAction: click(point='<point>1" + std::string(400, '0') + " 2</point>')", "",
      frames);
  EXPECT_TRUE(!huge || !huge->action.contains("click_at")) << huge->action.dump();
}

HistoryEntry step_entry(std::string reply, std::string url, std::string result) {
  return {Json{{"click_at", {1, 2}}}, std::move(result), std::move(url), "", std::move(reply)};
}

// Holo3 (hub.hcompany.ai/agent-loop): each tool of the schema it is sent, read into vimgpt's actions; points are
// thousandths of the image sent.
TEST(HoloDialect, ReadsEveryToolOfItsSchema) {
  const auto holo = [](const Json& call) {
    return read("holo3", Json{{"note", nullptr}, {"thought", "next"}, {"tool_call", call}}.dump());
  };
  EXPECT_EQ(holo({{"tool_name", "click"}, {"element", "Search"}, {"x", 500}, {"y", 500}}),
            (Json{{"click_at", {378.0, 252.0}}}));
  // The hosted model sometimes writes a coordinate as a [min, max] pair despite its schema: the middle.
  EXPECT_EQ(holo({{"tool_name", "click"}, {"element", "Search"}, {"x", {400, 600}}, {"y", 500}}),
            (Json{{"click_at", {378.0, 252.0}}}));
  EXPECT_EQ(holo({{"tool_name", "write"}, {"content", "red lamp"}, {"press_enter", true}}),
            (Json{{"type", "red lamp"}, {"enter", true}}));
  EXPECT_EQ(holo({{"tool_name", "write"}, {"content", "red lamp"}}), (Json{{"type", "red lamp"}, {"enter", false}}));
  EXPECT_EQ(holo({{"tool_name", "scroll_web"}, {"direction", "down"}, {"x", 500}, {"y", 250}}),
            (Json{{"scroll", "down"}, {"in", {378.0, 126.0}}}));
  EXPECT_EQ(holo({{"tool_name", "move_mouse_web"}, {"element", "Menu"}, {"x", 0}, {"y", 0}}),
            (Json{{"hover", {0.0, 0.0}}}));
  EXPECT_EQ(holo({{"tool_name", "press_keys_web"}, {"keys", {"ctrl", "a"}}}), (Json{{"key", "Control+a"}}));
  EXPECT_EQ(holo({{"tool_name", "press_keys_web"}, {"keys", {"Return"}}}), (Json{{"key", "Enter"}}));
  EXPECT_EQ(holo({{"tool_name", "go_to_web"}, {"url", "https://example.com"}}),
            (Json{{"navigate", "https://example.com"}}));
  EXPECT_EQ(holo({{"tool_name", "go_back_web"}}), (Json{{"back", true}}));
  EXPECT_EQ(holo({{"tool_name", "wait_web"}, {"seconds", 30}}), (Json{{"wait", 10.0}}));
  EXPECT_EQ(holo({{"tool_name", "answer"}, {"content", "9 to 6"}}), (Json{{"done", "9 to 6"}}));
  // What vimgpt cannot do, or a call without its point, is a step error in words.
  EXPECT_TRUE(holo({{"tool_name", "scroll_web"}, {"direction", "left"}, {"x", 1}, {"y", 1}}).contains("unsupported"));
  EXPECT_TRUE(holo({{"tool_name", "click"}, {"element", "Search"}}).contains("unsupported"));
  EXPECT_TRUE(holo({{"tool_name", "refresh_web"}}).contains("unsupported"));
  // Every tool the schema offers is one vimgpt reads.
  for (const auto& tool : family("holo3").tool["properties"]["tool_call"]["oneOf"]) {
    const std::string name = tool["properties"]["tool_name"]["const"];
    const Json action = holo({{"tool_name", name}, {"direction", "up"}, {"x", 1}, {"y", 1}, {"keys", {"a"}}});
    EXPECT_FALSE(action.contains("unsupported")) << name << ": " << action.dump();
  }
  // Its thoughts: the reasoning field and the reply's "thought"; a reply that is no JSON object goes to repair.
  const PointFrame frames{{756, 504}, {756, 504}};
  auto reply = detail::read_dialect_reply(
      family("holo3"), R"({"note": null, "thought": "open it", "tool_call": {"tool_name": "go_back_web"}})",
      "The page is wrong.", frames);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->thoughts, "The page is wrong.\nopen it");
  EXPECT_FALSE(detail::read_dialect_reply(family("holo3"), "I would click the button.", "", frames));
  EXPECT_FALSE(detail::read_dialect_reply(family("holo3"), R"({"thought": "x"})", "", frames));
}

// MolmoWeb (allenai/molmoweb agent/multimodal_agent.py convert_action_json_to_action_obj): each action its harness
// reads, points in percent of the screenshot (gemini_type_text_at's in thousandths), scroll deltas positive down.
TEST(MolmoWebDialect, ReadsEveryActionOfItsHarness) {
  const auto molmo = [](const Json& action) {
    return read("molmoweb", Json{{"thought", "next"}, {"action", action}}.dump());
  };
  EXPECT_EQ(molmo({{"name", "click"}, {"x", 50}, {"y", 25}}), (Json{{"click_at", {378.0, 126.0}}}));
  EXPECT_EQ(molmo({{"name", "click"}, {"x", 50}, {"y", 25}, {"button", "right"}}),
            (Json{{"right_click", {378.0, 126.0}}}));
  EXPECT_EQ(molmo({{"name", "dblclick"}, {"x", 50}, {"y", 25}}), (Json{{"double_click", {378.0, 126.0}}}));
  EXPECT_EQ(molmo({{"name", "click"}, {"x", 100}, {"y", 0}}), (Json{{"click_at", {754.0, 1.0}}}));  // kept inside
  EXPECT_EQ(molmo({{"name", "hover_at"}, {"x", 10}, {"y", 10}}), (Json{{"hover", {75.6, 50.4}}}));
  EXPECT_EQ(molmo({{"name", "drag_and_drop"}, {"from_x", 10}, {"from_y", 10}, {"to_x", 50}, {"to_y", 50}}),
            (Json{{"drag", {75.6, 50.4}}, {"to", {378.0, 252.0}}}));
  EXPECT_EQ(molmo({{"name", "scroll"}, {"delta_x", 0}, {"delta_y", 40}}), (Json{{"scroll", "down"}}));
  EXPECT_EQ(molmo({{"name", "scroll_at"}, {"x", 50}, {"y", 50}, {"delta_x", 0}, {"delta_y", -40}}),
            (Json{{"scroll", "up"}, {"in", {378.0, 252.0}}}));
  EXPECT_EQ(molmo({{"name", "keyboard_type"}, {"text", "red lamp"}}), (Json{{"type", "red lamp"}, {"enter", false}}));
  EXPECT_EQ(molmo({{"name", "keypress"}, {"key", "ControlOrMeta+a"}}), (Json{{"key", "Control+a"}}));
  EXPECT_EQ(molmo({{"name", "gemini_type_text_at"}, {"x", 500}, {"y", 500}, {"text", "lamp"}}),
            (Json{{"actions",
                   {{{"click_at", {378.0, 252.0}}}, {{"key", "Control+A"}}, {{"type", "lamp"}, {"enter", true}}}}}));
  EXPECT_EQ(molmo({{"name", "gemini_type_text_at"},
                   {"x", 500},
                   {"y", 500},
                   {"text", "lamp"},
                   {"press_enter", false},
                   {"clear_before_typing", false}}),
            (Json{{"actions", {{{"click_at", {378.0, 252.0}}}, {{"type", "lamp"}, {"enter", false}}}}}));
  EXPECT_EQ(molmo({{"name", "goto"}, {"url", "https://example.com"}}), (Json{{"navigate", "https://example.com"}}));
  EXPECT_EQ(molmo({{"name", "browser_nav"}, {"nav_type", "go_back"}}), (Json{{"back", true}}));
  EXPECT_EQ(molmo({{"name", "browser_nav"}, {"nav_type", "tab_focus"}, {"index", 1}}), (Json{{"tab", 2}}));
  EXPECT_EQ(molmo({{"name", "send_msg_to_user"}, {"msg", "[ANSWER] 9 to 6"}}), (Json{{"done", "9 to 6"}}));
  EXPECT_EQ(molmo({{"name", "send_msg_to_user"}, {"msg", "Which size?"}}), (Json{{"ask", "Which size?"}}));
  EXPECT_EQ(molmo({{"name", "noop"}}), (Json{{"wait", 5}}));
  EXPECT_EQ(molmo({{"name", "report_infeasible"}, {"infeasibility_reason", "no such shop"}}),
            (Json{{"done", "infeasible: no such shop"}}));
  // The action alone, as the harness also takes it; what vimgpt cannot do is a step error in words.
  EXPECT_EQ(read("molmoweb", R"({"name": "goto", "url": "https://example.com"})"),
            (Json{{"navigate", "https://example.com"}}));
  EXPECT_TRUE(molmo({{"name", "scroll"}, {"delta_x", 30}, {"delta_y", 0}}).contains("unsupported"));
  EXPECT_TRUE(molmo({{"name", "browser_nav"}, {"nav_type", "new_tab"}}).contains("unsupported"));
  EXPECT_TRUE(molmo({{"name", "click"}}).contains("unsupported"));
  EXPECT_TRUE(molmo({{"name", "zoom"}}).contains("unsupported"));
  const PointFrame frames{{756, 504}, {756, 504}};
  auto reply = detail::read_dialect_reply(
      family("molmoweb"), R"({"thought": "go back", "action": {"name": "browser_nav", "nav_type": "go_back"}})", "",
      frames);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->thoughts, "go back");
  EXPECT_FALSE(detail::read_dialect_reply(family("molmoweb"), "I would click the button.", "", frames));
  EXPECT_FALSE(detail::read_dialect_reply(family("molmoweb"), R"({"thought": "x"})", "", frames));
}

// The template as the authors' Jinja renders it (agent/multimodal_agent.py's USER_MSG_TEMPLATE rendered with jinja2
// 3.1.6 for these values): each step's action as Python prints the dict the model wrote, keys in its order.
TEST(DialectConversation, MolmoWebWritesTheStepsTakenIntoItsOneTurnAsItsHarnessRendersThem) {
  const Dialect& molmo = family("molmoweb");
  StepRequest step;
  step.objective = "find the hours";
  step.current_url = "http://127.0.0.1/now";
  step.current_title = "Hours";
  step.history = {
      step_entry(
          R"({"thought": "Search for it.", "action": {"name": "goto", "url": "http://127.0.0.1/search?q=it's"}})",
          "http://127.0.0.1/", "went"),
      {Json(), "the person took over", "http://127.0.0.1/1", "", ""},  // not the model's: no step of the template
      step_entry(
          R"({"thought": "Click \"Hours\".", "action": {"name": "click", "x": 50.2, "y": 7.0, "button": "left"}})",
          "http://127.0.0.1/search", "clicked")};
  const auto turns = detail::dialect_turns(molmo, step, {Size{768, 512}});
  ASSERT_EQ(turns.size(), 1U);
  EXPECT_EQ(turns[0].role, "user");
  EXPECT_EQ(turns[0].image, 0);
  EXPECT_EQ(turns[0].lead, "");  // the image first, then the text
  EXPECT_EQ(
      turns[0].text,
      "molmo_web_think: \n# GOAL\nfind the hours\n\n# PREVIOUS STEPS\n## Step 1\nTHOUGHT: Search for it.\nACTION: "
      "{'name': 'goto', 'url': \"http://127.0.0.1/search?q=it's\"}\n## Step 2\nTHOUGHT: Click \"Hours\".\nACTION: "
      "{'name': 'click', 'x': 50.2, 'y': 7.0, 'button': 'left'}\n\n# CURRENTLY ACTIVE PAGE\nPage 0: Hours | "
      "http://127.0.0.1/now\n\n# NEXT STEP\n");
  // No steps yet, on the second of two tabs.
  step.history.clear();
  step.current_url = "http://127.0.0.1/";
  step.current_title = "Home";
  step.tabs = {{1, "Hours", "127.0.0.1", false}, {2, "Home", "127.0.0.1", true}};
  EXPECT_EQ(detail::dialect_turns(molmo, step, {Size{768, 512}})[0].text,
            "molmo_web_think: \n# GOAL\nfind the hours\n\n# PREVIOUS STEPS\n\n# CURRENTLY ACTIVE PAGE\nPage 1: Home | "
            "http://127.0.0.1/\n\n# NEXT STEP\n");
  // The last ten steps are kept, numbered as they were taken; a long title is cut as the harness cuts it.
  step.history.clear();
  for (int i = 0; i < 12; ++i)
    step.history.push_back(step_entry(R"({"thought": "t", "action": {"name": "noop"}})", "u", "waited"));
  step.current_title = std::string(120, 'T');
  const std::string text = detail::dialect_turns(molmo, step, {Size{768, 512}})[0].text;
  EXPECT_EQ(text.find("## Step 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# PREVIOUS STEPS\n## Step 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("## Step 12\nTHOUGHT: t\nACTION: {'name': 'noop'}\n\n# CURRENTLY"), std::string::npos) << text;
  EXPECT_NE(text.find(": " + std::string(85, 'T') + "... (truncated) | "), std::string::npos) << text;
}

TEST(MolmoWebDialect, PythonReprAsPythonPrintsIt) {
  // Each expected text is what Python 3.11's repr() printed for json.loads of the same input.
  EXPECT_EQ(detail::python_repr(nlohmann::ordered_json::parse(
                R"({"name": "type", "text": "a'b\"c\\d\ne", "ok": true, "none": null, "n": [1, 2.5]})")),
            R"({'name': 'type', 'text': 'a\'b"c\\d\ne', 'ok': True, 'none': None, 'n': [1, 2.5]})");
  EXPECT_EQ(detail::python_repr(nlohmann::ordered_json("it's")), R"("it's")");
  EXPECT_EQ(detail::python_repr(nlohmann::ordered_json::parse(R"({"x": 7.0, "y": 12, "t": "\t\u0001"})")),
            R"({'x': 7.0, 'y': 12, 't': '\t\x01'})");
}

TEST(DialectConversation, HoloWrapsObservationsKeepsThreeScreenshotsAndAnswersEachCallWithItsOutput) {
  const Dialect& holo = family("holo3");
  StepRequest step;
  step.objective = "find the hours";
  step.current_url = "http://127.0.0.1/now";
  const auto reply = [](const std::string& tool, const char* note) {
    return Json{{"note", note == nullptr ? Json() : Json(note)},
                {"thought", "t"},
                {"tool_call", {{"tool_name", tool}, {"element", "e"}, {"x", 1}, {"y", 2}}}};
  };
  step.history = {
      // A server that leaves the thinking in the content: only the parsed JSON goes back.
      step_entry("<think>secret plan</think>" + reply("click", "hours are on /info").dump(2), "http://127.0.0.1/1",
                 "clicked at (1, 2)"),
      {Json(), "the person took over", "http://127.0.0.1/1", "", ""},
      step_entry(reply("click", nullptr).dump(), "http://127.0.0.1/2", "clicked at (1, 2)"),
      {Json{{"click_at", {1, 2}}}, "", "http://127.0.0.1/3", "nothing changed", reply("click", nullptr).dump()},
      step_entry(reply("move_mouse_web", nullptr).dump(), "http://127.0.0.1/4", "hovered")};
  step.earlier_frames = holo.screenshots - 1;
  const std::vector<Size> images(static_cast<std::size_t>(holo.screenshots), Size{768, 512});
  const auto turns = detail::dialect_turns(holo, step, images);
  ASSERT_EQ(turns.size(), 14U);  // system, 4 x (observation, reply, tool output), this step's observation
  EXPECT_EQ(turns[0].role, "system");
  EXPECT_NE(turns[0].text.find("The task: find the hours"), std::string::npos);
  EXPECT_TRUE(turns[0].text.ends_with("\n\n<output_format>\n```json\n" + holo.tool.dump() + "\n```\n</output_format>"));
  // The two oldest steps' screenshots are evicted, their <observation> kept.
  EXPECT_EQ(turns[1].text, "<observation>\nURL: http://127.0.0.1/1\n[screenshot evicted]\n</observation>");
  EXPECT_EQ(turns[1].image, -1);
  EXPECT_EQ(turns[2].role, "assistant");
  EXPECT_EQ(Json::parse(turns[2].text), reply("click", "hours are on /info"));
  EXPECT_EQ(turns[2].text.find("secret plan"), std::string::npos);
  EXPECT_EQ(turns[3].text, "<tool_output tool=\"click\">\nclicked at (1, 2)\n</tool_output>");
  EXPECT_EQ(turns[4].text.find("[screenshot evicted]") != std::string::npos, true);
  EXPECT_NE(turns[4].text.find("the person took over"), std::string::npos);
  EXPECT_EQ(turns[7].lead, "<observation>\nURL: http://127.0.0.1/3\n");
  EXPECT_EQ(turns[7].text, "\n</observation>");
  EXPECT_EQ(turns[7].image, 0);
  EXPECT_EQ(turns[9].text, "<tool_output tool=\"click\">\nError: nothing changed\n</tool_output>");
  EXPECT_EQ(turns[10].image, 1);
  EXPECT_EQ(turns[12].text, "<tool_output tool=\"move_mouse_web\">\nhovered\n</tool_output>");
  EXPECT_EQ(turns[13].lead, "<observation>\nURL: http://127.0.0.1/now\n");
  EXPECT_EQ(turns[13].image, 2);
  // The schema goes to the server too, and thinking is on.
  const Json fields = detail::dialect_request_fields(holo);
  EXPECT_EQ(fields["structured_outputs"]["json"], holo.tool);
  EXPECT_EQ(fields["chat_template_kwargs"]["enable_thinking"], true);
}

// The system turn as Qwen3.5's template writes it with tools (ollama's byte-checked qwen35.go): the tools block,
// the tool as Python's json.dumps writes it in its authors' key order, the XML call format. Its earlier calls go
// back in its own form even when the server handed them over as JSON tool_calls.
TEST(DialectConversation, Qwen35GetsItsTemplatesToolsBlockAndItsCallsBackInXml) {
  const Dialect& qwen = family("qwen3.5");
  StepRequest step;
  step.objective = "order";
  step.current_url = "http://127.0.0.1/";
  step.history = {
      step_entry("<think>a</think>\nThe button.\n<tool_call>\n{\"name\":\"computer_use\",\"arguments\":"
                 "{\"action\":\"left_click\",\"coordinate\":[500,250]}}\n</tool_call>",
                 "http://127.0.0.1/", "clicked")};
  step.earlier_frames = 1;
  const auto turns = detail::dialect_turns(qwen, step, {Size{768, 512}, Size{768, 512}});
  ASSERT_EQ(turns.size(), 4U);
  EXPECT_TRUE(turns[0].text.starts_with(
      "# Tools\n\nYou have access to the following functions:\n\n<tools>\n{\"type\": \"function\", \"function\": "
      "{\"name\": \"computer_use\", \"description\": \"Use a mouse"))
      << turns[0].text.substr(0, 200);
  EXPECT_NE(turns[0].text.find("\"parameters\": {\"properties\": {\"action\": {\"description\": "), std::string::npos);
  EXPECT_NE(turns[0].text.find("}}\n</tools>\n\nIf you choose to call a function ONLY reply"), std::string::npos);
  // Its points are 0-1000: the screen it is told is Qwen's 999x999, not the image's pixels.
  EXPECT_NE(turns[0].text.find("The screen's resolution is 999x999."), std::string::npos);
  EXPECT_EQ(turns[2].text,
            "<think>a</think>\nThe button.\n<tool_call>\n<function=computer_use>\n<parameter=action>\nleft_click\n"
            "</parameter>\n<parameter=coordinate>\n[500,250]\n</parameter>\n</function>\n</tool_call>");
  // Qwen3-VL's cookbook names the same 999x999 screen for its 0-1000 points; Qwen2.5-VL's pixels name the image.
  EXPECT_NE(detail::dialect_turns(family("qwen3-vl"), step, {Size{768, 512}, Size{768, 512}})[0].text.find("999x999"),
            std::string::npos);
  EXPECT_NE(detail::dialect_turns(family("qwen2.5-vl"), step, {Size{756, 504}})[0].text.find("756x504"),
            std::string::npos);
}

TEST(DialectConversation, RecentScreenshotsAndTheModelsOwnTurns) {
  const Dialect& fara = family("fara");
  StepRequest step;
  step.objective = "find the hours";
  step.current_url = "http://127.0.0.1/now";
  step.history = {step_entry("r1", "http://127.0.0.1/1", "clicked at (1, 2)"),
                  {Json(), "the person took over", "http://127.0.0.1/1", "", ""},
                  step_entry("r2", "http://127.0.0.1/2", "clicked at (1, 2)"),
                  step_entry("r3", "http://127.0.0.1/3", "clicked at (1, 2)")};
  // Fara keeps 3 screenshots: the last two steps' and this one.
  step.earlier_frames = fara.screenshots - 1;
  const std::vector<Size> images(static_cast<std::size_t>(fara.screenshots), Size{756, 504});
  const auto turns = detail::dialect_turns(fara, step, images);
  ASSERT_EQ(turns.size(), 8U);  // system, 3 x (user, assistant), this step's user
  EXPECT_EQ(turns[0].role, "system");
  EXPECT_NE(turns[0].text.find("The screen's resolution is 756x504."), std::string::npos);
  EXPECT_NE(turns[0].text.find("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"computer_use\""),
            std::string::npos);
  EXPECT_EQ(turns[1].text, "find the hours");
  EXPECT_EQ(turns[1].image, -1);  // the oldest step's screenshot is dropped, its words kept
  EXPECT_EQ(turns[2].text, "r1");
  EXPECT_EQ(turns[3].image, 0);
  EXPECT_NE(turns[3].text.find("the person took over"), std::string::npos);
  EXPECT_NE(turns[3].text.find(fara.next_turn), std::string::npos);
  EXPECT_EQ(turns[5].image, 1);
  EXPECT_EQ(turns[6].text, "r3");
  EXPECT_EQ(turns[7].image, 2);
  EXPECT_NE(turns[7].text.find("Current URL: http://127.0.0.1/now"), std::string::npos);
  EXPECT_NE(turns[7].text.find("The last action: clicked at (1, 2)"), std::string::npos);
}

// GLM-V's web mode (zai-org/GLM-V gui_agent_45v.py): each form of its action space, as its authors' WebVoyager
// reward reads them, in the reply layout its parser splits.
TEST(GlmMarksDialect, ReadsEveryActionOfItsWebActionSpace) {
  const auto glm = [](std::string_view action) {
    return read("glm-v", "Thought: the search box is 3.\nAction: " + std::string(action) + "\nMemory_Updated: {}");
  };
  EXPECT_EQ(glm("Click [12]"), (Json{{"click", "12"}}));
  EXPECT_EQ(glm("Type [2]; [5$ lamps]"),
            (Json{{"actions",
                   Json::array({{{"click", "2"}}, {{"key", "Control+A"}}, {{"type", "5$ lamps"}, {"enter", true}}})}}));
  EXPECT_EQ(glm("Scroll [WINDOW]; [down]"), (Json{{"scroll", "down"}}));
  EXPECT_EQ(glm("Scroll [6]; [up]"), (Json{{"scroll", "up"}, {"in", "6"}}));
  EXPECT_EQ(glm("Wait"), (Json{{"wait", 5}}));
  EXPECT_EQ(glm("GoBack"), (Json{{"back", true}}));
  EXPECT_EQ(glm("Bing"), (Json{{"navigate", "https://www.bing.com/"}}));
  EXPECT_EQ(glm("Key; [Return]"), (Json{{"key", "Enter"}}));
  EXPECT_EQ(glm("ANSWER; <content>Guatemala</content>"), (Json{{"done", "Guatemala"}}));
  // GLM-4.1V's <answer> wrapper and the box tokens of the other modes; thoughts from <think> and Thought:.
  const PointFrame frames{{756, 504}, {756, 504}};
  auto wrapped = detail::read_dialect_reply(
      family("glm-v"),
      "<think>It is the first result.</think><answer>Thought: open it\nAction: <|begin_of_box|>Click [0]<|end_of_box|>"
      "\nMemory_Updated: {\"a\": 1}</answer>",
      "", frames);
  ASSERT_TRUE(wrapped) << wrapped.error().message;
  EXPECT_EQ(wrapped->action, (Json{{"click", "0"}}));
  EXPECT_EQ(wrapped->thoughts, "It is the first result.\nopen it");
  // Not of its action space, or no Action at all: a parse error, which the client asks again about once.
  EXPECT_FALSE(detail::read_dialect_reply(family("glm-v"), "Thought: x\nAction: Fly [3]", "", frames));
  EXPECT_FALSE(detail::read_dialect_reply(family("glm-v"), "I would click the button.", "", frames));
}

TEST(DialectConversation, GlmSendsOneTurnWithTheStepsItsMemoryAndTheMarkedElements) {
  const Dialect& glm = family("glm-v");
  EXPECT_TRUE(glm.reads_marks());
  StepRequest step;
  step.objective = "find the price of the red lamp";
  step.current_url = "http://127.0.0.1/shop";
  step.hint_text = "[0] link \"Home\" -> /\n[1] textbox \"Search\" empty\n";
  step.history = {
      step_entry("Thought: search it\nAction: Type [1]; [red lamp]\nMemory_Updated: {\"asked\": \"lamp\"}",
                 "http://127.0.0.1/", "typed 8 characters and pressed Enter"),
      {Json(), "the person took over", "http://127.0.0.1/", "", ""},
      {Json{{"click", "4"}}, "", "http://127.0.0.1/r", "no label 4 on this page", "Thought: t\nAction: Click [4]"}};
  const auto turns = detail::dialect_turns(glm, step, {Size{756, 504}});
  ASSERT_EQ(turns.size(), 1U);
  EXPECT_EQ(turns[0].role, "user");
  EXPECT_EQ(turns[0].image, 0);
  const std::string& text = turns[0].text;
  EXPECT_NE(text.find("# Task:\nfind the price of the red lamp, Please interact with http://127.0.0.1/shop and get"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("0.Thought:search it Action:Type [1]; [red lamp] Observation:typed 8 characters and pressed "
                      "Enter; the person took over\n1.Thought:t Action:Click [4] Observation:Failed: no label 4 on "
                      "this page\n"),
            std::string::npos)
      << text;
  // The memory is the last reply that wrote one.
  EXPECT_NE(text.find("Memory:{\"asked\": \"lamp\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("[0]: link \"Home\" -> /;\t[1]: textbox \"Search\" empty;"), std::string::npos) << text;
  for (const char* placeholder : {"{TASK}", "{Web}", "{Time}", "{PREVIOUS_ACTIONS}", "{Memory}", "{web_text}"}) {
    EXPECT_EQ(text.find(placeholder), std::string::npos) << placeholder;
  }
}

TEST(DialectConversation, UiTarsSendsItsPromptAsTheFirstUserTurn) {
  StepRequest step;
  step.objective = "open the menu";
  const auto turns = detail::dialect_turns(family("ui-tars-1.5"), step, {Size{756, 504}});
  ASSERT_EQ(turns.size(), 1U);
  EXPECT_EQ(turns[0].role, "user");
  EXPECT_NE(turns[0].text.find("## User Instruction\nopen the menu"), std::string::npos);
  EXPECT_EQ(turns[0].image, 0);
}

TEST(DialectConversation, GuiOwlFoldsTheStepsWhoseScreenshotsWereDroppedIntoItsFirstTurn) {
  const Dialect& owl = family("gui-owl-1.5");
  StepRequest step;
  step.objective = "find the hours";
  step.current_url = "http://127.0.0.1/now";
  for (int n = 1; n <= 6; ++n) {
    step.history.push_back(
        step_entry("Action: Click link " + std::to_string(n) + ".\n<tool_call>{\"name\": \"computer_use\"}</tool_call>",
                   "http://127.0.0.1/" + std::to_string(n), "clicked at (1, 2)"));
  }
  // GUI-Owl keeps 5 screenshots: the last four steps' and this one; steps 1 and 2 become lines of the first turn.
  step.earlier_frames = owl.screenshots - 1;
  const std::vector<Size> images(static_cast<std::size_t>(owl.screenshots), Size{768, 512});
  const auto turns = detail::dialect_turns(owl, step, images);
  ASSERT_EQ(turns.size(), 10U);  // system, 4 x (user, assistant), this step's user
  EXPECT_EQ(turns[0].role, "system");
  EXPECT_TRUE(turns[0].text.starts_with("# Tools")) << turns[0].text.substr(0, 40);
  EXPECT_NE(turns[0].text.find("The screen's resolution is 1000x1000."), std::string::npos);
  EXPECT_EQ(turns[1].text,
            "Please generate the next move according to the UI screenshot, instruction and previous actions.\n\n"
            "Instruction: find the hours\n\nPrevious actions:\nStep1: Click link 1.\nStep2: Click link 2.");
  EXPECT_EQ(turns[1].image, 0);  // the first step kept with its screenshot is step 3
  EXPECT_NE(turns[2].text.find("Click link 3."), std::string::npos);
  EXPECT_EQ(turns[9].image, 4);

  // The first step has nothing before it.
  StepRequest opening;
  opening.objective = "find the hours";
  const auto first = detail::dialect_turns(owl, opening, {Size{768, 512}});
  ASSERT_EQ(first.size(), 2U);
  EXPECT_TRUE(first[1].text.ends_with("Previous actions:\nNo previous action.")) << first[1].text;
  EXPECT_EQ(first[1].image, 0);
}

TEST(ComputerUseDialect, GuiOwlsInteractIsAQuestionForThePerson) {
  EXPECT_EQ(read("gui-owl-1.5",
                 "Action: Ask which account to use.\n<tool_call>{\"name\": \"computer_use\", \"arguments\": "
                 "{\"action\": \"interact\", \"text\": \"Which account?\"}}</tool_call>"),
            (Json{{"ask", "Which account?"}}));
  // Its points are thousandths of the frame.
  EXPECT_EQ(read("gui-owl-1.5",
                 "Action: Click it.\n<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": "
                 "\"left_click\", \"coordinate\": [500, 250]}}</tool_call>"),
            (Json{{"click_at", {378.0, 126.0}}}));
}

}  // namespace
}  // namespace vimgpt::vision

// ---- Against the fake model speaking each family's dialect ----------------------------------------------------

namespace vimgpt::vision {
namespace {

// The doctor's frame: a red and a blue square on white, the blue one at (434, 156), 200 px a side.
EncodedImage squares_frame() {
  Pixels pixels;
  pixels.width = 768;
  pixels.height = 512;
  pixels.channels = 3;
  pixels.data.assign(static_cast<std::size_t>(pixels.width) * pixels.height * 3, 255);
  const auto square = [&pixels](int left, std::array<std::uint8_t, 3> colour) {
    for (int y = 156; y < 356; ++y) {
      for (int x = left; x < left + 200; ++x) {
        const auto at = (static_cast<std::size_t>(y) * pixels.width + x) * 3;
        for (std::size_t c = 0; c < 3; ++c) pixels.data[at + c] = colour[c];
      }
    }
  };
  square(134, {220, 30, 30});
  square(434, {30, 60, 220});
  auto encoded = encode_image(pixels, ImageFormat::Png, 0);
  if (!encoded) throw std::runtime_error(encoded.error().message);
  return *encoded;
}

constexpr std::array<std::uint8_t, 3> kBlue{30, 60, 220};

std::string stages_of(const Checkup& checkup) {
  std::string stages;
  for (const auto& stage : checkup.stages) stages += stage.name + ": " + stage.detail + "\n";
  return stages;
}

TEST(DialectDoctor, TheBlueSquaresClickLandsForEveryFamily) {
  for (const auto& [served, family_name] :
       std::vector<std::pair<std::string, std::string>>{{"qwen2.5vl:7b", "qwen2.5-vl"},
                                                        {"qwen3-vl:8b", "qwen3-vl"},
                                                        {"qwen3.5:9b", "qwen3.5"},
                                                        {"microsoft/Fara-7B", "fara"},
                                                        {"microsoft/Fara1.5-9B", "fara-1.5"},
                                                        {"UI-TARS-1.5-7B-Q4_K_M.gguf", "ui-tars-1.5"},
                                                        {"mPLUG/GUI-Owl-1.5-8B-Instruct", "gui-owl-1.5"},
                                                        {"Hcompany/Holo-3.1-35B-A3B", "holo3"},
                                                        {"allenai/MolmoWeb-8B", "molmoweb"}}) {
    test::FakeModelServer server;
    const test::FakeFamily fake = test::fake_family(family_name);
    server.set_responder(test::dialect_responder(fake, kBlue, "clicked"));
    ClientOptions options;
    options.model = served;
    options.base_url = server.url();
    options.retry.max_retries = 0;
    const Checkup checkup =
        check_model(options, squares_frame(), "Click the blue square.", {{"click", "D"}}, {434, 156, 200, 200});
    const std::string stages = stages_of(checkup);
    EXPECT_TRUE(checkup.passed()) << served << "\n" << stages;
    ASSERT_TRUE(checkup.decision.has_value()) << stages;
    EXPECT_TRUE(checkup.decision->action.contains("click_at")) << checkup.decision->action.dump();
    EXPECT_FALSE(checkup.decision->thoughts.empty()) << served;
    EXPECT_EQ(server.problems(), std::vector<std::string>{}) << served;
    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 1U) << served;
    // No strict schema for a family that was not trained on one, and the image the server will not resize (Holo
    // takes any size: its points are of the image as sent).
    EXPECT_FALSE(requests[0].body.contains("response_format")) << served;
    ASSERT_EQ(requests[0].images.size(), 1U);
    if (family(family_name).resize.factor > 0) {
      EXPECT_EQ(requests[0].images[0].width % fake.factor, 0) << served;
      EXPECT_EQ(requests[0].images[0].height % fake.factor, 0) << served;
    }
    // Room for thinking: the family's reply cap, not vimgpt's 300.
    EXPECT_GE(requests[0].body.value("max_tokens", 0), 1024) << served;
  }
}

// The doctor of a family that reads marks: the frame's squares marked 0 and 1, their list beside it.
TEST(DialectDoctor, GlmNamesTheBlueSquaresMark) {
  test::FakeModelServer server;
  server.set_responder(test::dialect_responder(test::fake_family("glm-v"), kBlue, "clicked"));
  ClientOptions options;
  options.model = "zai-org/GLM-4.6V-Flash";
  options.base_url = server.url();
  options.retry.max_retries = 0;
  const Checkup checkup =
      check_model(options, squares_frame(), "Click the blue square.", {{"click", "1"}}, {434, 156, 200, 200},
                  "[0] generic \"red square\"\n[1] generic \"blue square\"\n");
  const std::string stages = stages_of(checkup);
  EXPECT_TRUE(checkup.passed()) << stages;
  ASSERT_TRUE(checkup.decision.has_value()) << stages;
  EXPECT_EQ(checkup.decision->action, (Json{{"click", "1"}}));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
  ASSERT_EQ(server.requests().size(), 1U);
  EXPECT_EQ(server.requests()[0].body.value("max_tokens", 0), 8192);
}

// `steps` decisions of `served` against the fake playing `family`, each with as many earlier frames as the family
// keeps and the replies so far in its history; each must click the blue square's centre (534, 256) in the 768x512
// frame, whatever the image sent.
struct Steps {
  std::vector<test::ReceivedRequest> requests;
  std::vector<std::string> problems;
  std::vector<std::string> thoughts;
};
Steps take_steps(const std::string& family_name, const std::string& served, int steps) {
  test::FakeModelServer server;
  server.set_responder(test::dialect_responder(test::fake_family(family_name), kBlue, "done"));
  ClientOptions options;
  options.model = served;
  options.base_url = server.url();
  options.retry.max_retries = 0;
  auto client = Client::create(options);
  if (!client) throw std::runtime_error(client.error().message);
  if ((*client)->dialect() == nullptr) throw std::runtime_error(served + " speaks no dialect");
  StepRequest step;
  step.objective = "click the blue square";
  const EncodedImage frame = squares_frame();
  Steps taken;
  for (int taken_steps = 0; taken_steps < steps; ++taken_steps) {
    step.images.clear();
    step.earlier_frames = std::min(taken_steps, (*client)->dialect()->screenshots - 1);
    for (int i = 0; i <= step.earlier_frames; ++i) step.images.push_back(frame);
    auto decision = (*client)->decide(step);
    if (!decision) throw std::runtime_error(decision.error().message);
    if (!decision->action.contains("click_at")) throw std::runtime_error("no click: " + decision->action.dump());
    EXPECT_NEAR(decision->action["click_at"][0].get<double>(), 534, 1.0) << served;
    EXPECT_NEAR(decision->action["click_at"][1].get<double>(), 256, 1.0) << served;
    taken.thoughts.push_back(decision->thoughts);
    step.history.push_back({decision->action, "clicked", "http://127.0.0.1/", "", decision->raw_reply});
  }
  taken.requests = server.requests();
  taken.problems = server.problems();
  return taken;
}

// Holo against the fake playing its harness's server: five steps, the schema in both places, three screenshots at
// most, each earlier reply back as its parsed JSON followed by its <tool_output>.
TEST(DialectConversation, HoloKeepsItsHarnessThroughManySteps) {
  const Steps taken = take_steps("holo3", "Hcompany/Holo-3.1-35B-A3B", 5);
  EXPECT_EQ(taken.problems, std::vector<std::string>{});
  for (const auto& thoughts : taken.thoughts) {
    EXPECT_NE(thoughts.find("I should find the blue button first."), std::string::npos) << thoughts;
  }
  const auto& requests = taken.requests;
  ASSERT_EQ(requests.size(), 5U);
  EXPECT_EQ(requests.back().images.size(), 3U);
  // system, 4 x (observation, reply, tool output), this step's observation
  EXPECT_EQ(requests.back().body["messages"].size(), 14U);
  EXPECT_EQ(requests.back().body.value("temperature", -1.0), 0.8);
  EXPECT_EQ(requests.back().body.value("max_tokens", 0), 4096);
  EXPECT_EQ(requests.back().body.value("reasoning_effort", ""), "medium");
}

TEST(DialectConversation, EarlierScreenshotsStayWithinWhatTheServerTakes) {
  // Fara keeps 3 screenshots, as its harness does; the fake refuses more, as vLLM does past its limit. The point is
  // the blue square's centre in the 768x512 frame, converted back from the 756x504 image sent.
  const Steps taken = take_steps("fara", "microsoft/Fara-7B", 4);
  EXPECT_EQ(taken.problems, std::vector<std::string>{});
  const auto& requests = taken.requests;
  ASSERT_EQ(requests.size(), 4U);
  EXPECT_EQ(requests.back().images.size(), 3U);
  // system, then 4 user turns each answered, but the last: the model's own replies come back as its turns.
  const auto& messages = requests.back().body["messages"];
  ASSERT_EQ(messages.size(), 8U);
  EXPECT_EQ(messages[2]["role"], "assistant");
  EXPECT_NE(messages[2]["content"].get<std::string>().find("<tool_call>"), std::string::npos);
  EXPECT_EQ(requests.back().body.value("temperature", -1.0), 0.0);  // Fara's harness sends 0
}

// Anthropic's computer tool (--mode computer-use): its actions read into vimgpt's, points in the display the tool
// declared (the screenshot as sent) converted to the frame, and the conversation of calls and their results.
using Calls = std::vector<std::pair<std::string, nlohmann::json>>;  // tool name, input
std::string tool_reply(const Calls& calls, const std::string& words = {}) {
  nlohmann::json blocks = nlohmann::json::array();
  if (!words.empty()) blocks.push_back({{"type", "text"}, {"text", words}});
  int id = 0;
  for (const auto& [name, input] : calls) {
    blocks.push_back({{"type", "tool_use"}, {"id", "toolu_" + std::to_string(++id)}, {"name", name}, {"input", input}});
  }
  return words + std::string(detail::kToolUseOpen) + blocks.dump() + std::string(detail::kToolUseClose);
}

TEST(ComputerTool, ItsActionsBecomeVimgptsWithPointsInTheFrame) {
  Dialect dialect;
  dialect.kind = DialectKind::AnthropicComputer;
  const PointFrame frames{{540, 360}, {1080, 720}};  // sent at half the frame's size
  const auto read = [&](const nlohmann::json& input) {
    auto reply =
        detail::read_dialect_reply(dialect, tool_reply(Calls{{"computer", input}}, "thinking aloud"), "", frames);
    if (!reply) throw std::runtime_error(reply.error().message);
    return reply->action;
  };
  EXPECT_EQ(read({{"action", "left_click"}, {"coordinate", {100, 50}}}),
            (nlohmann::json{{"click_at", {200.0, 100.0}}}));
  EXPECT_EQ(read({{"action", "triple_click"}, {"coordinate", {10, 10}}}),
            (nlohmann::json{{"triple_click", {20.0, 20.0}}}));
  EXPECT_EQ(read({{"action", "left_click_drag"}, {"start_coordinate", {1, 2}}, {"coordinate", {3, 4}}}),
            (nlohmann::json{{"drag", {2.0, 4.0}}, {"to", {6.0, 8.0}}}));
  EXPECT_EQ(read({{"action", "key"}, {"text", "ctrl+shift+Page_Down"}}),
            (nlohmann::json{{"key", "Control+Shift+PageDown"}}));
  EXPECT_EQ(read({{"action", "key"}, {"text", "Return"}}), (nlohmann::json{{"key", "Enter"}}));
  EXPECT_EQ(read({{"action", "type"}, {"text", "hello"}}), (nlohmann::json{{"type", "hello"}, {"enter", false}}));
  EXPECT_EQ(read({{"action", "scroll"}, {"coordinate", {5, 5}}, {"scroll_direction", "down"}, {"scroll_amount", 3}}),
            (nlohmann::json{{"scroll", "down"}, {"in", {10.0, 10.0}}}));
  EXPECT_EQ(read({{"action", "wait"}, {"duration", 30}}), (nlohmann::json{{"wait", 10.0}}));
  // What vimgpt cannot do is said, so the model reads it in the tool's result.
  // A zoom's region, its corners in the frame's pixels like every point.
  EXPECT_EQ(read({{"action", "zoom"}, {"region", {0, 5, 10, 15}}}),
            (nlohmann::json{{"zoom", {0.0, 10.0, 20.0, 30.0}}}));
  EXPECT_TRUE(read({{"action", "zoom"}}).contains("unsupported"));
  // A click without a coordinate is where the last mouse action left the pointer; a move needs one.
  EXPECT_EQ(read({{"action", "left_click"}}), (nlohmann::json{{"click_at", "pointer"}}));
  EXPECT_EQ(read({{"action", "double_click"}}), (nlohmann::json{{"double_click", "pointer"}}));
  EXPECT_TRUE(read({{"action", "mouse_move"}}).contains("unsupported"));
  EXPECT_TRUE(read({{"action", "scroll"}, {"scroll_direction", "left"}}).contains("unsupported"));
  // vimgpt's own browser tool, and several calls in one reply.
  auto reply =
      detail::read_dialect_reply(dialect,
                                 tool_reply(Calls{{"browser", {{"action", "navigate"}, {"url", "https://example.org"}}},
                                                  {"browser", {{"action", "back"}}}}),
                                 "", frames);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->action, (nlohmann::json{{"actions", {{{"navigate", "https://example.org"}}, {{"back", true}}}}}));
  // No call: the model's words are its answer.
  reply = detail::read_dialect_reply(dialect, "The museum opens at 9.", "", frames);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->action, (nlohmann::json{{"done", "The museum opens at 9."}}));
  EXPECT_FALSE(detail::read_dialect_reply(dialect, "  ", "", frames));
}

// Anthropic's toolset (computer_toolset_20260801): each member a tool of its own, called by name with the toolset's
// name beside it; its clicks' "text" is keys held, its key's "repeat" a count.
TEST(ComputerTool, TheToolsetsMembersAreActionsByName) {
  Dialect dialect;
  dialect.kind = DialectKind::AnthropicComputer;
  const PointFrame frames{{540, 360}, {1080, 720}};
  const auto read = [&](const std::string& member, const nlohmann::json& input) {
    nlohmann::json block = {
        {"type", "tool_use"}, {"id", "toolu_1"}, {"name", member}, {"toolset_name", "computer"}, {"input", input}};
    const std::string text =
        std::string(detail::kToolUseOpen) + nlohmann::json::array({block}).dump() + std::string(detail::kToolUseClose);
    auto reply = detail::read_dialect_reply(dialect, text, "", frames);
    if (!reply) throw std::runtime_error(reply.error().message);
    return reply->action;
  };
  EXPECT_EQ(read("left_click", {{"coordinate", {100, 50}}}), (nlohmann::json{{"click_at", {200.0, 100.0}}}));
  EXPECT_EQ(read("right_click", {{"coordinate", {1, 1}}}), (nlohmann::json{{"right_click", {2.0, 2.0}}}));
  EXPECT_EQ(read("type", {{"text", "ctrl"}}), (nlohmann::json{{"type", "ctrl"}, {"enter", false}}));  // typed, not held
  EXPECT_EQ(read("key", {{"text", "Tab"}, {"repeat", 3}}),
            (nlohmann::json{{"actions", {{{"key", "Tab"}}, {{"key", "Tab"}}, {{"key", "Tab"}}}}}));
  EXPECT_EQ(read("key", {{"text", "Return"}}), (nlohmann::json{{"key", "Enter"}}));
  EXPECT_EQ(read("screenshot", nlohmann::json::object()), (nlohmann::json{{"wait", 0}}));
  const nlohmann::json held = read("left_click", {{"coordinate", {1, 1}}, {"text", "shift"}});
  ASSERT_TRUE(held.contains("unsupported")) << held.dump();
  EXPECT_NE(held["unsupported"].get<std::string>().find("keys held"), std::string::npos);
  EXPECT_TRUE(
      read("scroll", {{"scroll_direction", "down"}, {"scroll_amount", 1}, {"text", "ctrl"}}).contains("unsupported"));
  // A member the toolset was told not to offer, should the model call it anyway.
  EXPECT_TRUE(read("middle_click", {{"coordinate", {1, 1}}}).contains("unsupported"));
}

TEST(ComputerTool, EachCallIsAnsweredByItsResultWithTheWordsOfWhatHappened) {
  StepRequest step;
  step.objective = "order";
  step.current_url = "http://127.0.0.1/b";
  HistoryEntry clicked;
  clicked.action = {{"click_at", {1, 2}}};
  clicked.result = "clicked at (1, 2)";
  clicked.url = "http://127.0.0.1/a";
  clicked.reply =
      tool_reply(Calls{{"computer", {{"action", "left_click"}, {"coordinate", {1, 2}}}}}, "First the field.");
  HistoryEntry paused;  // not the model's: told with the next result
  paused.result = "the person paused the run";
  step.history = {clicked, paused};
  const auto turns = detail::computer_tool_turns(step, {{540, 360}}, DialectKind::AnthropicComputer);
  ASSERT_EQ(turns.size(), 4U);
  EXPECT_EQ(turns[0].role, "system");
  EXPECT_EQ(turns[1].role, "user");
  EXPECT_NE(turns[1].text.find("order"), std::string::npos);
  EXPECT_TRUE(turns[1].tool_results.empty());
  EXPECT_EQ(turns[2].role, "assistant");
  ASSERT_TRUE(turns[2].tool_uses.is_array());
  EXPECT_EQ(turns[2].tool_uses[0]["text"], "First the field.");  // the blocks go back as the model wrote them
  EXPECT_EQ(turns[3].tool_results, std::vector<std::string>{"toolu_1"});
  EXPECT_NE(turns[3].text.find("the person paused the run"), std::string::npos) << turns[3].text;
  EXPECT_NE(turns[3].text.find("The action: clicked at (1, 2)"), std::string::npos) << turns[3].text;
  EXPECT_NE(turns[3].text.find("Current URL: http://127.0.0.1/b"), std::string::npos) << turns[3].text;
  EXPECT_EQ(turns[3].image, 0);
}

TEST(ComputerTool, OpenAIsBatchedActionsBecomeVimgptsAndItsChecksAreKeptForThePerson) {
  Dialect dialect;
  dialect.kind = DialectKind::OpenAIComputer;
  const PointFrame frames{{540, 360}, {1080, 720}};
  const nlohmann::json items = {
      {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", nlohmann::json::array()}, {"encrypted_content", "x"}},
      {{"type", "computer_call"},
       {"id", "cu_1"},
       {"call_id", "call_1"},
       {"actions",
        {{{"type", "click"}, {"button", "left"}, {"x", 10}, {"y", 20}},
         {{"type", "keypress"}, {"keys", {"CTRL", "A"}}},
         {{"type", "type"}, {"text", "hi"}},
         {{"type", "scroll"}, {"x", 5}, {"y", 5}, {"scroll_x", 0}, {"scroll_y", -300}},
         {{"type", "drag"}, {"path", {{{"x", 1}, {"y", 1}}, {{"x", 2}, {"y", 2}}, {{"x", 3}, {"y", 4}}}}}}},
       {"pending_safety_checks",
        {{{"id", "sc_1"}, {"code", "irrelevant_domain"}, {"message", "Off the task's site."}}}}},
      {{"type", "function_call"},
       {"id", "fc_1"},
       {"call_id", "call_2"},
       {"name", "browser"},
       {"arguments", R"({"action": "back"})"}}};
  const std::string reply =
      "Going on." + std::string(detail::kToolUseOpen) + items.dump() + std::string(detail::kToolUseClose);
  auto read = detail::read_dialect_reply(dialect, reply, "", frames);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->action, (nlohmann::json{{"actions",
                                           {{{"click_at", {20.0, 40.0}}},
                                            {{"key", "Control+A"}},
                                            {{"type", "hi"}, {"enter", false}},
                                            {{"scroll", "up"}, {"in", {10.0, 10.0}}},
                                            {{"drag", {2.0, 2.0}}, {"to", {6.0, 8.0}}},
                                            {{"back", true}}}}}));
  EXPECT_EQ(read->thoughts, "Going on.");
  EXPECT_EQ(detail::pending_safety_checks(reply), std::vector<std::string>{"Off the task's site."});
  // A click with keys held, or with the wheel, is not done: the step's error says so.
  const nlohmann::json held = {{{"type", "computer_call"},
                                {"call_id", "c"},
                                {"action", {{"type", "click"}, {"button", "wheel"}, {"x", 1}, {"y", 1}}}}};
  read = detail::read_dialect_reply(
      dialect, std::string(detail::kToolUseOpen) + held.dump() + std::string(detail::kToolUseClose), "", frames);
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->action.contains("unsupported")) << read->action.dump();
}

// Gemini's functionCall parts, both action sets (Gemini 3.5 Flash's and the earlier models'), as vimgpt's actions:
// points from its 0-999 grid onto the frame, type_text_at as a click, the field cleared and the text typed (Enter only
// when asked), a safety decision kept for the person.
TEST(ComputerTool, GeminisCallsOnItsGridBecomeVimgptsAndItsSafetyDecisionIsKeptForThePerson) {
  const Dialect dialect = detail::computer_tool_dialect(Provider::Gemini);
  EXPECT_EQ(dialect.kind, DialectKind::GeminiComputer);
  const PointFrame frames{{768, 512}, {1080, 720}};
  const auto call = [](const std::string& name, nlohmann::json args) {
    return nlohmann::json{{"functionCall", {{"name", name}, {"args", std::move(args)}}}, {"thoughtSignature", "s"}};
  };
  const nlohmann::json parts = {
      {{"text", "The field first."}},
      call("type_text_at", {{"x", 500}, {"y", 250}, {"text", "rush"}}),
      call("click",
           {{"x", 100},
            {"y", 500},
            {"safety_decision", {{"decision", "require_confirmation"}, {"explanation", "It buys something."}}}}),
      call("hotkey", {{"keys", {"ctrl", "a"}}}),
      call("key_combination", {{"keys", "ctrl+c"}}),
      call("scroll", {{"x", 500}, {"y", 500}, {"direction", "down"}, {"magnitude", 800}}),
      call("scroll_document", {{"direction", "up"}}),
      call("drag_and_drop", {{"x", 0}, {"y", 0}, {"destination_x", 1000}, {"destination_y", 1000}}),
      call("type", {{"text", "hi"}, {"press_enter", true}}),
      call("wait_5_seconds", nlohmann::json::object()),
      call("navigate", {{"url", "https://example.org"}}),
      call("go_back", nlohmann::json::object())};
  const std::string reply =
      "The field first." + std::string(detail::kToolUseOpen) + parts.dump() + std::string(detail::kToolUseClose);
  auto read = detail::read_dialect_reply(dialect, reply, "", frames);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->action, (nlohmann::json{{"actions",
                                           {{{"click_at", {540.0, 180.0}}},
                                            {{"key", "Control+A"}},
                                            {{"type", "rush"}, {"enter", false}},
                                            {{"click_at", {108.0, 360.0}}},
                                            {{"key", "Control+a"}},
                                            {{"key", "Control+c"}},
                                            {{"scroll", "down"}, {"in", {540.0, 360.0}}},
                                            {{"scroll", "up"}},
                                            {{"drag", {0.0, 0.0}}, {"to", {1080.0, 720.0}}},
                                            {{"type", "hi"}, {"enter", true}},
                                            {{"wait", 5.0}},
                                            {{"navigate", "https://example.org"}},
                                            {{"back", true}}}}}));
  EXPECT_EQ(read->thoughts, "The field first.");
  EXPECT_EQ(detail::pending_safety_checks(reply), std::vector<std::string>{"It buys something."});
  // What vimgpt cannot do is the step's error, saying what to use instead.
  for (const std::string name : {"go_forward", "search", "middle_click", "key_down", "teleport"}) {
    const nlohmann::json one = nlohmann::json::array({call(name, {{"x", 1}, {"y", 1}})});
    read = detail::read_dialect_reply(
        dialect, std::string(detail::kToolUseOpen) + one.dump() + std::string(detail::kToolUseClose), "", frames);
    ASSERT_TRUE(read) << name << ": " << read.error().message;
    EXPECT_TRUE(read->action.contains("unsupported")) << name << ": " << read->action.dump();
  }
}

}  // namespace
}  // namespace vimgpt::vision
