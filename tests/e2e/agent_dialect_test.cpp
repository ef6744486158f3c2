// The whole loop in each open family's dialect, through the real vimgpt binary: Chromium, a page on 127.0.0.1
// with one blue button, and the fake model answering as the family would (its own form and point space, the
// point found where the button is in the screenshot it received; for GLM-V, the numbered mark of the button the
// task names). The click lands only if the frame was sized for the family's server and its point was converted
// back right (or the mark's number names the button).
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "support/cli_runner.h"
#include "support/dialect_fake.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::uint8_t, 3> kBlue{30, 60, 220};
// The order button both pages show, blue until clicked, up to its click handler.
constexpr std::string_view kOrderButton =
    "<button id=order style='position:absolute;left:380px;top:220px;width:260px;height:140px;"
    "background:rgb(30,60,220);border:0;color:#fff' onclick=\"";

struct Family {
  const char* served;  // the model name as its server serves it
  const char* family;
};

class DialectE2E : public ::testing::TestWithParam<Family> {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      s.Get("/", [](const httplib::Request&, httplib::Response& res) {
        // The button is blue until clicked; the click is told to the server, then the button is gone.
        res.set_content(
            "<!doctype html><title>Order</title><body style='margin:0;background:#fff'>"
            "<p style='margin:20px'>Press the button to order.</p>" +
                std::string(kOrderButton) +
                "fetch('/ordered').then(() => { document.body.innerHTML = '<p>Ordered.</p>'; })\">"
                "Order</button></body>",
            "text/html");
      });
      s.Get("/ordered", [this](const httplib::Request&, httplib::Response& res) {
        ++ordered_;
        res.set_content("ok", "text/plain");
      });
    });
    record_ = fs::temp_directory_path() /
              ("vimgpt-dialect-" + std::to_string(::getpid()) + "-" + std::string(GetParam().family));
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  std::atomic<int> ordered_{0};
  std::unique_ptr<test::SiteServer> site_;
  fs::path record_;
};

TEST_P(DialectE2E, OrdersByClickingThePointItsModelGives) {
  const Family& family = GetParam();
  test::FakeModelServer model;
  model.set_responder(test::dialect_responder(test::fake_family(family.family), kBlue, "The order is placed."));
  const test::CliRun run =
      test::run_vimgpt({"press the order button", "--base-url", model.url(), "--model", family.served, "--start-url",
                        site_->url("/"), "--record", record_.string(), "--max-retries", "0", "--max-steps", "4"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ordered_.load(), 1) << "the click did not land on the button";
  EXPECT_NE(run.out.find("The order is placed."), std::string::npos) << run.out;
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 2U);
  // A point, or for a family that reads numbered marks (GLM-V), the mark's number.
  const bool marks = std::string(family.family) == "glm-v";
  EXPECT_TRUE(steps[0]["action"].contains(marks ? "click" : "click_at")) << steps[0]["action"].dump();
  // The point fell on the labelled button: recorded with its signature, for the run cache and replay.
  ASSERT_TRUE(steps[0].contains("signature") && steps[0]["signature"].is_object()) << steps[0].dump();
  EXPECT_NE(steps[0]["signature"].dump().find("Order"), std::string::npos) << steps[0]["signature"].dump();
  EXPECT_TRUE(steps[1]["action"].contains("done")) << steps[1]["action"].dump();
  for (const auto& request : model.requests()) EXPECT_FALSE(request.body.contains("response_format"));
  // The second request carries the model's own first reply back: as its turn, or (GLM-V and MolmoWeb, whose
  // harnesses write the whole history into one prompt) as the first step's lines.
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 2U);
  const bool one_turn = marks || std::string(family.family) == "molmoweb";
  bool replied = false;
  for (const auto& message : requests[1].body["messages"]) replied |= message.value("role", "") == "assistant";
  EXPECT_EQ(replied, !one_turn);
  if (marks) {
    EXPECT_NE(requests[1].text.find("0.Thought:The button the task names is marked"), std::string::npos)
        << requests[1].text;
    EXPECT_NE(requests[0].text.find("]: button \"Order\";"), std::string::npos) << requests[0].text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, DialectE2E,
    ::testing::Values(Family{"qwen2.5vl:7b", "qwen2.5-vl"}, Family{"qwen3-vl:8b", "qwen3-vl"},
                      Family{"Qwen/Qwen3.5-9B", "qwen3.5"}, Family{"microsoft/Fara-7B", "fara"},
                      Family{"microsoft/Fara1.5-9B", "fara-1.5"}, Family{"UI-TARS-1.5-7B-Q4_K_M.gguf", "ui-tars-1.5"},
                      Family{"mPLUG/GUI-Owl-1.5-8B-Instruct", "gui-owl-1.5"}, Family{"zai-org/GLM-4.5V", "glm-v"},
                      Family{"Hcompany/Holo-3.1-35B-A3B", "holo3"}, Family{"allenai/MolmoWeb-8B", "molmoweb"}),
    [](const ::testing::TestParamInfo<Family>& tested) {
      std::string name = tested.param.family;
      for (char& c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
      }
      return name;
    });

// Qwen's computer_use acting where the mouse is, through the real binary: a drag from where the last mouse_move left
// the pointer, and the wheel turned over a box that scrolls inside a page that scrolls too. The fake answers as
// qwen2.5-vl does, its points found in the screenshot it received (red: the handle, blue: the drop zone, green: the
// box), in the pixels of the image as its server resized it.
class PointerE2E : public ::testing::Test {
 protected:
  static constexpr std::array<std::uint8_t, 3> kRed{220, 30, 30};
  static constexpr std::array<std::uint8_t, 3> kGreen{30, 160, 60};

  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([](httplib::Server& s) {
      s.Get("/drag", [](const httplib::Request&, httplib::Response& res) {
        // Dropped only when the button went down on the handle and came up over the zone: a drag from the handle.
        res.set_content(
            "<!doctype html><title>Drag</title><body style='margin:0;background:#fff'>"
            "<div id=handle style='position:absolute;left:80px;top:300px;width:70px;height:70px;"
            "background:rgb(220,30,30)'></div><div id=zone style='position:absolute;left:600px;top:280px;"
            "width:160px;height:120px;background:rgb(30,60,220)'></div><script>let held=false;"
            "handle.onmousedown=()=>{held=true};onmouseup=(e)=>{const r=zone.getBoundingClientRect();"
            "if(held&&e.clientX>=r.left&&e.clientX<=r.right&&e.clientY>=r.top&&e.clientY<=r.bottom)"
            "fetch('/dropped');held=false};</script>",
            "text/html");
      });
      s.Get("/scroll", [](const httplib::Request&, httplib::Response& res) {
        std::string lines;
        for (int i = 1; i <= 60; ++i) lines += "<p style='margin:4px'>Clause " + std::to_string(i) + "</p>";
        res.set_content(
            "<!doctype html><title>Terms</title><body style='margin:0;background:#fff;height:3000px'>"
            "<div id=box style='margin:80px;width:400px;height:220px;overflow:auto;"
            "background:rgb(30,160,60);color:#fff'>" +
                lines +
                "</div><script>box.onscroll=()=>fetch('/box?top='+box.scrollTop);"
                "onscroll=()=>fetch('/page?top='+scrollY);</script>",
            "text/html");
      });
      s.Get("/dropped", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
      s.Get("/box", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
      s.Get("/page", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
    });
    record_ = fs::temp_directory_path() / ("vimgpt-pointer-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  // Each step's call: `calls[i]` for step i (a function of the point of a colour), then terminate.
  using Call = std::function<nlohmann::json(const nlohmann::json& body)>;
  test::CliRun run(const std::string& page, std::vector<Call> calls) {
    model_.set_responder([this, calls = std::move(calls)](const test::ReceivedRequest& received) {
      const std::size_t step = answered_++;
      const nlohmann::json arguments = step < calls.size()
                                           ? calls[step](received.body)
                                           : nlohmann::json{{"action", "terminate"}, {"status", "success"}};
      return test::ScriptedReply::text("<tool_call>\n" +
                                       nlohmann::json{{"name", "computer_use"}, {"arguments", arguments}}.dump() +
                                       "\n</tool_call>");
    });
    return test::run_vimgpt({"do it", "--base-url", model_.url(), "--model", "qwen2.5vl:7b", "--start-url",
                             site_->url(page), "--record", record_.string(), "--max-retries", "0", "--max-steps", "5"});
  }
  static Call at(const char* action, std::array<std::uint8_t, 3> colour,
                 nlohmann::json more = nlohmann::json::object()) {
    return [action, colour, more](const nlohmann::json& body) {
      const auto point = test::point_of_colour(family(), body, colour);
      nlohmann::json arguments = more;
      arguments["action"] = action;
      if (point) arguments["coordinate"] = {std::lround(point->x), std::lround(point->y)};
      return arguments;
    };
  }
  static test::FakeFamily family() { return test::fake_family("qwen2.5-vl"); }
  [[nodiscard]] std::string result_of(std::size_t step) const {
    const auto steps = test::read_steps(record_);
    return step < steps.size() ? steps[step].value("result", "") : "";
  }

  std::unique_ptr<test::SiteServer> site_;
  test::FakeModelServer model_;
  std::size_t answered_ = 0;
  fs::path record_;
};

TEST_F(PointerE2E, QwensDragGoesFromWhereTheMouseWasMovedToTheCoordinate) {
  const auto run_ = run("/drag", {at("mouse_move", kRed), at("left_click_drag", kBlue)});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_EQ(site_->count("GET", "/dropped"), 1) << result_of(1);
  EXPECT_NE(result_of(1).find("from where the pointer rested"), std::string::npos) << result_of(1);
  EXPECT_EQ(model_.problems(), std::vector<std::string>{});
}

TEST_F(PointerE2E, ADragBeforeTheMouseWasPutAnywhereIsAnErrorTheModelReads) {
  const auto run_ = run("/drag", {at("left_click_drag", kBlue)});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_EQ(site_->count("GET", "/dropped"), 0);
  EXPECT_NE(result_of(0).find("the pointer has not been put anywhere yet"), std::string::npos) << result_of(0);
}

TEST_F(PointerE2E, AScrollAtAPointScrollsTheBoxUnderItNotThePage) {
  const auto run_ = run("/scroll", {at("scroll", kGreen, {{"pixels", -300}})});
  ASSERT_EQ(run_.exit_code, 0) << run_.err;
  EXPECT_GE(site_->count("GET", "/box"), 1) << result_of(0);
  EXPECT_EQ(site_->count("GET", "/page"), 0) << result_of(0);
  EXPECT_NE(result_of(0).find("down by"), std::string::npos) << result_of(0);
  EXPECT_EQ(result_of(0).find("the page"), std::string::npos) << result_of(0);
}

// --mode computer-use: Anthropic's own computer tool, through the real binary. The fake answers as Claude does: a
// tool_use block naming the button's centre in the screenshot it received (pixels of the display the tool declares),
// then, once the tool_result brings the next screenshot, its answer in words. It refuses, as Anthropic does, the
// tool without its beta header or in a version the model does not take, and a tool_use left without its tool_result.
class ComputerUseE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      s.Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<!doctype html><title>Order</title><body style='margin:0;background:#fff'>"
            "<input id=note placeholder=Note style='margin:20px;width:300px;height:40px'>" +
                std::string(kOrderButton) +
                "fetch('/ordered?note=' + encodeURIComponent(note.value)).then(() => "
                "{ document.body.innerHTML = '<p>Ordered.</p>'; })\">Order</button></body>",
            "text/html");
      });
      // A blue link to the same server under another name: another site for --confirm-risky.
      s.Get("/away", [](const httplib::Request& req, httplib::Response& res) {
        const std::string host = req.get_header_value("Host");
        res.set_content(
            "<!doctype html><title>Away</title><body style='margin:0;background:#fff'><a href='http://"
            "localhost" +
                host.substr(host.find(':')) +
                "/' style='display:block;margin:20px;width:300px;"
                "height:80px;background:rgb(30,60,220)'>Elsewhere</a></body>",
            "text/html");
      });
      s.Get("/ordered", [this](const httplib::Request& req, httplib::Response& res) {
        note_ = req.get_param_value("note");
        ++ordered_;
        res.set_content("ok", "text/plain");
      });
    });
    record_ = fs::temp_directory_path() / ("vimgpt-computer-use-" + std::to_string(::getpid()));
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  test::CliRun run(const test::FakeModelServer& model, const std::string& name, const std::string& flag = {},
                   const std::string& input = {}) {
    const bool gemini = name.starts_with("gemini");
    std::vector<std::string> args = {"write rush in the note, then press the order button",
                                     "--base-url",
                                     gemini ? model.gemini_url() : model.url(),
                                     "--provider",
                                     name.starts_with("claude") ? "anthropic"
                                     : gemini                   ? "gemini"
                                                                : "openai",
                                     "--model",
                                     name,
                                     "--api-key",
                                     "test-key",
                                     "--mode",
                                     "computer-use",
                                     "--start-url",
                                     site_->url("/"),
                                     "--record",
                                     record_.string(),
                                     "--max-retries",
                                     "0",
                                     "--max-steps",
                                     "6"};
    if (!flag.empty()) args.push_back(flag);
    return test::run_vimgpt(args, {}, input);
  }

  // The task done: the note typed into its field, the order placed by a click on the button, the model's answer
  // printed, and nothing the fake refused.
  void expect_filled_and_ordered(const test::CliRun& result, const test::FakeModelServer& model) const {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(ordered_.load(), 1) << "the click did not land on the button";
    EXPECT_EQ(note_, "rush") << "the typed text did not reach the field";
    EXPECT_NE(result.out.find("The order is placed."), std::string::npos) << result.out;
    EXPECT_EQ(model.problems(), std::vector<std::string>{});
  }

  std::atomic<int> ordered_{0};
  std::string note_;
  std::unique_ptr<test::SiteServer> site_;
  fs::path record_;
};

nlohmann::json computer(nlohmann::json input) {
  return nlohmann::json::array({{{"name", "computer"}, {"input", std::move(input)}}});
}

// A call of one of the toolset's members (the fake names its toolset, as Anthropic does).
nlohmann::json member(const std::string& name, nlohmann::json input) {
  return nlohmann::json::array({{{"name", name}, {"input", std::move(input)}}});
}

// Claude 5.5 takes Anthropic's computer toolset only (computer_toolset_20260801): no beta header, no display size.
TEST_F(ComputerUseE2E, ClaudeFillsAndOrdersThroughItsComputerTool) {
  test::FakeModelServer model;
  int step = 0;
  model.set_responder([&](const test::ReceivedRequest& request) {
    ++step;
    const auto image = test::last_image(request.body);
    const auto button = image ? test::find_colour(*image, kBlue) : std::nullopt;
    // The note field is at (20, 20)-(326, 66) of the page: its middle, in the screenshot's pixels.
    const double scale = button ? button->width / 1080.0 : 1.0;
    if (step == 1)
      return test::ScriptedReply::tool_use(
          member("left_click", {{"coordinate", {std::lround(170 * scale), std::lround(43 * scale)}}}),
          "The note field first.");
    if (step == 2) return test::ScriptedReply::tool_use(member("type", {{"text", "rush"}}));
    if (button) {
      return test::ScriptedReply::tool_use(
          member("left_click", {{"coordinate", {std::lround(button->x), std::lround(button->y)}}}));
    }
    return test::ScriptedReply::text("The order is placed.");
  });
  const test::CliRun result = run(model, "claude-sonnet-5-5");
  expect_filled_and_ordered(result, model);
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 4U);
  for (const auto& request : requests) {
    EXPECT_EQ(request.header("anthropic-beta"), "");
    const auto& tool = request.body["tools"][0];
    EXPECT_EQ(tool["type"], "computer_toolset_20260801");
    // Its points are the screenshot's pixels: it is told no display size.
    EXPECT_FALSE(tool.contains("display_width_px")) << tool.dump();
    EXPECT_EQ(tool["configs"]["middle_click"]["enabled"], false);
    EXPECT_FALSE(request.body.contains("output_config") && request.body["output_config"].contains("format"));
  }
  // The page as it shows itself: no yellow label in what the tool sees.
  const auto first = test::last_image(requests[0].body);
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(test::find_colour(*first, {255, 214, 0}).has_value()) << "a label was drawn on the screenshot";
  // The conversation the tool loop expects: the task with the screenshot, then each call and its result (the last
  // action's words and the next screenshot), the model's calls sent back as it wrote them.
  const auto& messages = requests[3].body["messages"];
  ASSERT_EQ(messages.size(), 7U) << messages.dump().substr(0, 2000);
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(messages[1]["content"][0]["text"], "The note field first.");
  const auto& call = messages[1]["content"][1];
  EXPECT_EQ(call["type"], "tool_use");
  EXPECT_EQ(call["name"], "left_click");
  const auto& result_block = messages[2]["content"][0];
  EXPECT_EQ(result_block["type"], "tool_result");
  EXPECT_EQ(result_block["tool_use_id"], call["id"]);
  EXPECT_EQ(result_block["toolset_name"], "computer");
  EXPECT_NE(result_block.dump().find("The action: clicked at"), std::string::npos)
      << result_block.dump().substr(0, 600);
  const std::string typed = messages[4]["content"][0].dump();
  EXPECT_NE(typed.find("The action: typed"), std::string::npos) << typed.substr(0, 600);
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 4U);
  EXPECT_TRUE(steps[0]["action"].contains("click_at")) << steps[0]["action"].dump();
  // The point on the button is recorded with its element's signature, for the run cache and replay.
  ASSERT_TRUE(steps[2].contains("signature") && steps[2]["signature"].is_object()) << steps[2].dump();
  EXPECT_NE(steps[2]["signature"].dump().find("Order"), std::string::npos) << steps[2]["signature"].dump();
}

// The toolset's zoom: the region captured on its own and sent as the zoom's result, larger than in the screenshot, in
// place of the screenshot; the model's next point is in the whole screenshot's pixels again and lands.
TEST_F(ComputerUseE2E, ClaudesZoomShowsTheRegionCloserAndItsNextClickLands) {
  test::FakeModelServer model;
  int step = 0;
  std::optional<test::Centre> seen;    // the button in the whole screenshot
  std::optional<test::Centre> zoomed;  // the button in the zoom's image
  model.set_responder([&](const test::ReceivedRequest& request) {
    ++step;
    const auto image = test::last_image(request.body);
    const auto button = image ? test::find_colour(*image, kBlue) : std::nullopt;
    if (step == 1) {
      seen = button;
      if (!seen) return test::ScriptedReply::text("no button");
      // A region around the button's top left corner (380, 220 of the 1080-wide page): blue in its bottom right.
      const double scale = seen->width / 1080.0;
      const long x = std::lround(380 * scale);
      const long y = std::lround(220 * scale);
      return test::ScriptedReply::tool_use(member("zoom", {{"region", {x - 40, y - 20, x + 40, y + 20}}}));
    }
    if (step == 2) {
      zoomed = button;
      if (!seen) return test::ScriptedReply::text("no button");
      return test::ScriptedReply::tool_use(
          member("left_click", {{"coordinate", {std::lround(seen->x), std::lround(seen->y)}}}));
    }
    return test::ScriptedReply::text("The order is placed.");
  });
  const test::CliRun result = run(model, "claude-sonnet-5-5");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  EXPECT_EQ(ordered_.load(), 1) << "the click after the zoom did not land on the button";
  ASSERT_TRUE(seen.has_value());
  ASSERT_TRUE(zoomed.has_value()) << "the zoom's image does not show the button";
  // 80x40 screenshot pixels shown several times larger (at most the screenshot's size): the button's corner.
  EXPECT_GT(zoomed->width, 3 * 80);
  EXPECT_LE(zoomed->width, seen->width);
  EXPECT_NEAR(static_cast<double>(zoomed->width) / zoomed->height, 2.0, 0.1);
  // Only the region: the button's corner (its blue) is the image's bottom right, not its middle.
  EXPECT_GT(zoomed->x, zoomed->width * 0.6);
  EXPECT_GT(zoomed->y, zoomed->height * 0.6);
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 3U);
  const auto& messages = requests[1].body["messages"];
  const auto& zoom_result = messages.back()["content"][0];
  EXPECT_EQ(zoom_result["toolset_name"], "computer");
  EXPECT_NE(zoom_result.dump().find("the page was not touched"), std::string::npos)
      << zoom_result.dump().substr(0, 600);
  // The tool is told to offer zoom now: it is not among the members withheld.
  EXPECT_FALSE(requests[0].body["tools"][0]["configs"].contains("zoom"));
  const auto steps = test::read_steps(record_);
  ASSERT_GE(steps.size(), 2U);
  EXPECT_TRUE(steps[0]["action"].contains("zoom")) << steps[0]["action"].dump();
}

// A tool the model cannot do is the step's error, which the model reads in the tool_result; the run goes on.
TEST_F(ComputerUseE2E, AnActionVimgptCannotDoIsToldBackInTheToolResult) {
  test::FakeModelServer model;
  int step = 0;
  model.set_responder([&](const test::ReceivedRequest&) {
    if (++step == 1)
      return test::ScriptedReply::tool_use(computer({{"action", "middle_click"}, {"coordinate", {5, 5}}}));
    return test::ScriptedReply::text("Could not order.");
  });
  const test::CliRun result = run(model, "claude-opus-4-6");
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 2U) << result.err;
  // Opus 4.6 takes the beta tool: its header, and the display as the screenshot is sent, so a point in it is a
  // point of the frame.
  for (const auto& request : requests) {
    EXPECT_EQ(request.header("anthropic-beta"), "computer-use-2025-11-24");
    const auto& tool = request.body["tools"][0];
    EXPECT_EQ(tool["type"], "computer_20251124");
    EXPECT_EQ(tool["enable_zoom"], true);
    ASSERT_FALSE(request.images.empty());
    EXPECT_EQ(tool["display_width_px"], request.images.back().width);
    EXPECT_EQ(tool["display_height_px"], request.images.back().height);
  }
  const std::string told = requests[1].body["messages"][2]["content"][0].dump();
  EXPECT_NE(told.find("cannot do the computer tool's \\\"middle_click\\\""), std::string::npos) << told;
  EXPECT_EQ(ordered_.load(), 0);
}

// OpenAI's computer tool on the Responses API: batched actions in one computer_call, the reasoning sent back
// encrypted before the call it led to, each call answered by its screenshot, the words of what happened after it.
nlohmann::json openai_computer(nlohmann::json actions, nlohmann::json checks = nlohmann::json::array()) {
  return nlohmann::json::array(
      {{{"name", "computer"}, {"actions", std::move(actions)}, {"pending_safety_checks", std::move(checks)}}});
}

TEST_F(ComputerUseE2E, GptFillsAndOrdersThroughItsComputerTool) {
  test::FakeModelServer model;
  int step = 0;
  model.set_responder([&](const test::ReceivedRequest& request) {
    const auto image = test::last_image(request.body);
    const auto button = image ? test::find_colour(*image, kBlue) : std::nullopt;
    const double scale = button ? button->width / 1080.0 : 1.0;
    if (++step == 1) {
      return test::ScriptedReply::tool_use(openai_computer(
          {{{"type", "click"}, {"button", "left"}, {"x", std::lround(170 * scale)}, {"y", std::lround(43 * scale)}},
           {{"type", "type"}, {"text", "rush"}}}));
    }
    if (button) {
      return test::ScriptedReply::tool_use(openai_computer(
          {{{"type", "click"}, {"button", "left"}, {"x", std::lround(button->x)}, {"y", std::lround(button->y)}}}));
    }
    return test::ScriptedReply::text("The order is placed.");
  });
  const test::CliRun result = run(model, "gpt-5.4");
  expect_filled_and_ordered(result, model);
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 3U);
  for (const auto& request : requests) {
    EXPECT_EQ(request.path, "/v1/responses");
    EXPECT_EQ(request.body["tools"][0], (nlohmann::json{{"type", "computer"}}));
    EXPECT_EQ(request.body["include"], nlohmann::json::array({"reasoning.encrypted_content"}));
    EXPECT_EQ(request.body["store"], false);
  }
  const auto& input = requests[2].body["input"];
  std::vector<std::string> kinds;
  for (const auto& item : input) kinds.push_back(item.value("type", item.value("role", "")));
  const std::vector<std::string> expected = {
      "system", "user",      "reasoning",     "computer_call",        "computer_call_output",
      "user",   "reasoning", "computer_call", "computer_call_output", "user"};
  EXPECT_EQ(kinds, expected) << input.dump().substr(0, 3000);
  EXPECT_NE(input[5].dump().find("The action: "), std::string::npos) << input[5].dump();
}

// Gemini's calls: functionCall parts with points on its 0-999 grid, answered on Google's native API.
nlohmann::json gemini_call(const std::string& name, nlohmann::json args) {
  return nlohmann::json::array({{{"name", name}, {"args", std::move(args)}}});
}

// Where a point of the 1080x720 frame lies on Gemini's 0-999 grid.
nlohmann::json on_grid(double x, double y, nlohmann::json args = nlohmann::json::object()) {
  args["x"] = std::lround(x * 1000 / 1080);
  args["y"] = std::lround(y * 1000 / 720);
  return args;
}

// The blue button's centre on Gemini's grid, in the screenshot the request carries (with `args` beside it); nullopt
// when it is not shown.
std::optional<nlohmann::json> button_on_grid(const test::ReceivedRequest& request,
                                             nlohmann::json args = nlohmann::json::object()) {
  const auto image = test::last_image(request.body);
  const auto button = image ? test::find_colour(*image, kBlue) : std::nullopt;
  if (!button) return std::nullopt;
  const double scale = 1080.0 / button->width;  // the frame's pixels per screenshot pixel
  return on_grid(button->x * scale, button->y * scale, std::move(args));
}

// Google's API as the fake plays it, for gemini-3.8-flash.
const test::Expectations kGemini{"test-key", "gemini-3.8-flash", 0, 0, test::Requirement::Any, test::Service::Gemini};

// Gemini's computer_use tool: the earlier models' type_text_at (a click on the field, what it held cleared, the
// text typed), then a click, on Google's native API; every call goes back with its thought signature and is answered
// by a functionResponse holding the address, what the actions did and the next screenshot (the fake refuses a
// signature left out, or a call left unanswered, as Google does).
TEST_F(ComputerUseE2E, GeminiFillsAndOrdersThroughItsComputerUseTool) {
  test::FakeModelServer model{kGemini};
  int step = 0;
  model.set_responder([&](const test::ReceivedRequest& request) {
    if (++step == 1) {
      return test::ScriptedReply::tool_use(
          gemini_call("type_text_at", on_grid(170, 43, {{"text", "rush"}, {"press_enter", false}})));
    }
    if (auto button = button_on_grid(request)) return test::ScriptedReply::tool_use(gemini_call("click", *button));
    return test::ScriptedReply::text("The order is placed.");
  });
  const test::CliRun result = run(model, "gemini-3.8-flash");
  expect_filled_and_ordered(result, model);
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 3U);
  for (const auto& request : requests) {
    EXPECT_EQ(request.path, "/v1beta/models/gemini-3.8-flash:generateContent");
    EXPECT_EQ(request.header("x-goog-api-key"), "test-key");
    EXPECT_EQ(request.body["tools"][0], (nlohmann::json{{"computerUse", {{"environment", "ENVIRONMENT_BROWSER"}}}}));
    EXPECT_EQ(request.body["generationConfig"]["thinkingConfig"]["thinkingLevel"], "LOW");
  }
  const auto& contents = requests[2].body["contents"];
  std::vector<std::string> roles;
  for (const auto& content : contents) roles.push_back(content.value("role", ""));
  EXPECT_EQ(roles, (std::vector<std::string>{"user", "model", "user", "model", "user"}))
      << contents.dump().substr(0, 3000);
  const auto& answer = contents[4]["parts"][0]["functionResponse"];
  EXPECT_EQ(answer["name"], "click");
  EXPECT_EQ(answer["response"]["url"], site_->url("/"));
  EXPECT_NE(answer["response"].value("output", "").find("The action: "), std::string::npos) << answer.dump();
  EXPECT_EQ(answer["parts"][0]["inlineData"]["mimeType"], "image/jpeg");
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  // The point on the button is recorded with its element's signature, for the run cache and replay.
  ASSERT_TRUE(steps[1].contains("signature") && steps[1]["signature"].is_object()) << steps[1].dump();
  EXPECT_NE(steps[1]["signature"].dump().find("Order"), std::string::npos) << steps[1]["signature"].dump();
}

// Gemini's safety decision is the person's to confirm: their yes runs the action, and the call's response
// acknowledges it (the fake refuses one without, as Google's reference agent never sends).
TEST_F(ComputerUseE2E, APersonsYesToGeminisSafetyDecisionRunsTheActionAndAcknowledgesIt) {
  test::FakeModelServer model{kGemini};
  int step = 0;
  model.set_responder([&](const test::ReceivedRequest& request) {
    const auto button = button_on_grid(
        request, {{"safety_decision",
                   {{"decision", "require_confirmation"}, {"explanation", "Placing an order spends money."}}}});
    if (++step > 1 || !button) return test::ScriptedReply::text("The order is placed.");
    return test::ScriptedReply::tool_use(gemini_call("click", *button));
  });
  const test::CliRun result = run(model, "gemini-3.8-flash", "--confirm", "y\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("the model's provider asks a person to confirm it: Placing an order spends money."),
            std::string::npos)
      << result.err;
  EXPECT_EQ(ordered_.load(), 1);
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[1].body["contents"][2]["parts"][0]["functionResponse"]["response"]["safety_acknowledgement"],
            "true");
}

// A safety check the provider asks a person to acknowledge, with nobody there: the run ends needing input, the
// action not done and the check never acknowledged for them.
TEST_F(ComputerUseE2E, AProvidersSafetyCheckWithNobodyToConfirmEndsNeedingInput) {
  test::FakeModelServer model;
  model.set_responder([&](const test::ReceivedRequest& request) {
    const auto image = test::last_image(request.body);
    const auto button = image ? test::find_colour(*image, kBlue) : std::nullopt;
    if (!button) return test::ScriptedReply::text("no button");
    return test::ScriptedReply::tool_use(openai_computer(
        {{{"type", "click"}, {"button", "left"}, {"x", std::lround(button->x)}, {"y", std::lround(button->y)}}},
        {{{"id", "sc_1"}, {"code", "malicious_instructions"}, {"message", "The page may be steering you."}}}));
  });
  const test::CliRun result = run(model, "gpt-5.5");
  EXPECT_EQ(result.exit_code, 4) << result.err;  // needs_input
  EXPECT_NE(result.err.find("The page may be steering you."), std::string::npos) << result.err;
  EXPECT_EQ(ordered_.load(), 0) << "the action ran without the person's yes";
  EXPECT_EQ(model.requests().size(), 1U);
  const nlohmann::json run_json = nlohmann::json::parse(std::ifstream(record_ / "run.json"));
  EXPECT_EQ(run_json["outcome"], "needs_input");
}

// With a person there, the check is theirs to answer: their yes runs the action, and the check goes back to OpenAI
// acknowledged with the call's output (the fake refuses an output without it, as OpenAI does).
TEST_F(ComputerUseE2E, APersonsYesToTheSafetyCheckRunsTheActionAndAcknowledgesIt) {
  test::FakeModelServer model;
  int step = 0;
  model.set_responder([&](const test::ReceivedRequest& request) {
    const auto image = test::last_image(request.body);
    const auto button = image ? test::find_colour(*image, kBlue) : std::nullopt;
    if (++step > 1 || !button) return test::ScriptedReply::text("The order is placed.");
    return test::ScriptedReply::tool_use(openai_computer(
        {{{"type", "click"}, {"button", "left"}, {"x", std::lround(button->x)}, {"y", std::lround(button->y)}}},
        {{{"id", "sc_1"}, {"code", "malicious_instructions"}, {"message", "The page may be steering you."}}}));
  });
  const test::CliRun result = run(model, "gpt-5.5", "--confirm", "y\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("ask first: the model's provider asks a person to confirm it: The page may be steering "
                            "you."),
            std::string::npos)
      << result.err;
  EXPECT_EQ(ordered_.load(), 1);
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
  const auto requests = model.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_NE(requests[1].body["input"].dump().find(R"("acknowledged_safety_checks":[{"code":"malicious_instructions")"),
            std::string::npos)
      << requests[1].body["input"].dump().substr(0, 3000);
}

// A provider's safety check on a click that also leaves the task's sites (--confirm-risky): one question says both,
// and its yes lets the run on to that site, so the next step there is not asked again.
TEST_F(ComputerUseE2E, ASafetyCheckOnARiskyClickAsksOnceForBothAndItsYesCoversTheSite) {
  test::FakeModelServer model;
  int step = 0;
  std::string elsewhere;
  model.set_responder([&](const test::ReceivedRequest& request) {
    const auto image = test::last_image(request.body);
    const auto blue = image ? test::find_colour(*image, kBlue) : std::nullopt;
    ++step;
    if (step == 1 && blue) {
      return test::ScriptedReply::tool_use(openai_computer(
          {{{"type", "click"}, {"button", "left"}, {"x", std::lround(blue->x)}, {"y", std::lround(blue->y)}}},
          {{{"id", "sc_1"}, {"code", "malicious_instructions"}, {"message", "The page may be steering you."}}}));
    }
    if (step == 2) {  // on the other site now: open another of its pages (risky had the yes not covered the site)
      return test::ScriptedReply::tool_use(
          nlohmann::json::array({{{"name", "browser"}, {"arguments", {{"action", "navigate"}, {"url", elsewhere}}}}}));
    }
    return test::ScriptedReply::text("Arrived.");
  });
  elsewhere = "http://localhost:" + std::to_string(site_->port()) + "/?again";
  const auto result =
      test::run_vimgpt({"follow the link", "--base-url", model.url(), "--provider", "openai", "--model", "gpt-5.5",
                        "--api-key", "test-key", "--mode", "computer-use", "--start-url", site_->url("/away"),
                        "--max-retries", "0", "--max-steps", "5", "--confirm-risky"},
                       {}, "y\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("ask first: it leaves the task's sites for localhost, and the model's provider asks a "
                            "person to confirm it: The page may be steering you."),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("ask first"), result.err.rfind("ask first")) << "asked again: " << result.err;
  EXPECT_EQ(model.requests().size(), 3U);
  EXPECT_EQ(model.problems(), std::vector<std::string>{});
}

// The mode is refused, with what to do, where there is no computer tool to speak.
TEST(ComputerUseFlags, AModeWithoutItsToolIsAClearUsageError) {
  test::FakeModelServer model;
  auto result = test::run_vimgpt({"anything", "--base-url", model.url(), "--provider", "openai", "--model", "gpt-4.1",
                                  "--api-key", "k", "--mode", "computer-use"});
  EXPECT_EQ(result.exit_code, 64) << result.err;  // EX_USAGE
  EXPECT_NE(result.err.find("the catalogue knows no computer tool for gpt-4.1: --mode computer-use takes "),
            std::string::npos)
      << result.err;
  result =
      test::run_vimgpt({"anything", "--base-url", model.url(), "--model", "qwen3-vl:8b", "--mode", "computer-use"});
  EXPECT_EQ(result.exit_code, 64) << result.err;
  EXPECT_NE(result.err.find("a compatible server has none of"), std::string::npos) << result.err;
  result = test::run_vimgpt(
      {"anything", "--base-url", model.url(), "--model", "claude-sonnet-5-5", "--api-key", "k", "--mode", "computer"});
  EXPECT_EQ(result.exit_code, 64) << result.err;
  EXPECT_NE(result.err.find("--mode takes labels, computer-use or auto (the mode `vimgpt models NAME` says the model "
                            "is best in), not 'computer'"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(model.requests().empty());
}

// --mode auto takes the mode the catalogue says the model is best in (models.json's best_modes): gpt-5.4 its
// provider's computer tool over the Responses API, Claude Sonnet 5.5 vimgpt's labels over the Messages API, and the
// same gpt-5.4 name behind a compatible server (no --provider), which has no computer tool, labels.
TEST_F(ComputerUseE2E, AutoTakesTheModeTheCatalogueSaysTheModelIsBestIn) {
  // One run in auto mode against a fake that answers at once, in words or in labels' JSON: the request it received.
  const auto first_request = [this](const std::string& name, const std::string& provider, const std::string& reply) {
    test::FakeModelServer model;
    model.set_responder([reply](const test::ReceivedRequest&) { return test::ScriptedReply::text(reply); });
    std::vector<std::string> args = {"say what the page is for",
                                     "--base-url",
                                     model.url(),
                                     "--model",
                                     name,
                                     "--api-key",
                                     "test-key",
                                     "--mode",
                                     "auto",
                                     "--start-url",
                                     site_->url("/"),
                                     "--max-retries",
                                     "0",
                                     "--max-steps",
                                     "2"};
    if (!provider.empty()) args.insert(args.end(), {"--provider", provider});
    const auto result = test::run_vimgpt(args);
    EXPECT_EQ(result.exit_code, 0) << name << ": " << result.err;
    EXPECT_NE(result.out.find("A shop's order form."), std::string::npos) << name << ": " << result.out;
    EXPECT_EQ(model.problems(), std::vector<std::string>{}) << name;
    auto requests = model.requests();
    EXPECT_EQ(requests.size(), 1U) << name;
    return requests.empty() ? test::ReceivedRequest{} : requests.front();
  };
  const std::string labelled = R"({"done": "A shop's order form."})";
  auto gpt = first_request("gpt-5.4", "openai", "A shop's order form.");
  EXPECT_EQ(gpt.path, "/v1/responses");
  EXPECT_EQ(gpt.body["tools"][0], (nlohmann::json{{"type", "computer"}}));
  auto claude = first_request("claude-sonnet-5-5", "anthropic", labelled);
  EXPECT_EQ(claude.path, "/v1/messages");
  EXPECT_EQ(claude.body.dump().find("computer_toolset"), std::string::npos);
  auto compatible = first_request("gpt-5.4", "", labelled);
  EXPECT_EQ(compatible.path, "/v1/chat/completions");
  EXPECT_FALSE(compatible.body.contains("tools")) << compatible.body.dump().substr(0, 500);
}

}  // namespace
}  // namespace vimgpt
