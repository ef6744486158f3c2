// The whole loop, through the real vimgpt binary: Chromium, a small shop on 127.0.0.1, the fake model.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "browser/browser.h"
#include "browser/diagnostics.h"
#include "support/assertions.h"
#include "support/browser_options.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::CliRun;
using test::FakeModelServer;
using test::read_steps;
using test::run_vimgpt;
using test::ScriptedReply;

// The shop: search form → results → item page → reservation form the server records.
std::unique_ptr<test::SiteServer> start_shop() {
  auto site = std::make_unique<test::SiteServer>([](httplib::Server& s) {
    s.Get("/search", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("<!doctype html><title>Results</title><h1>Results for " + req.get_param_value("q") +
                          "</h1><ul><li><a href='/fx/item.html'>Blue Widget</a></li>"
                          "<li><a href='/fx/none.html'>Red Widget</a></li></ul>",
                      "text/html");
    });
    // Two pages that lead to each other, and a page one scroll tall: where a model can go round in circles.
    for (const auto& page : {std::pair{"/one", "/two"}, std::pair{"/two", "/one"}}) {
      s.Get(page.first, [page](const httplib::Request&, httplib::Response& res) {
        res.set_content(std::string("<!doctype html><title>Page ") + (page.first + 1) + "</title><a href='" +
                            page.second + "'>Onward</a>",
                        "text/html");
      });
    }
    s.Get("/tall", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<!doctype html><title>Tall</title><a href='/one'>Start</a><div style='height:150vh'></div>",
                      "text/html");
    });
    // A date picker that shows one month: Prev pages back. Only the month's name changes (its 28 day buttons and
    // their labels stay), as in a picker whose days are the same buttons relabelled.
    s.Get("/calendar", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "<!doctype html><title>Pick a date</title><style>#prev{position:fixed;left:0;top:0;width:120px;"
          "height:48px}</style><button id=prev>Prev</button><h2 style='margin-top:60px' id=month>March 2026</h2>"
          "<div id=days></div><script>const names=['January','February','March','April','May','June','July',"
          "'August','September','October','November','December'];let m=2,y=2026;"
          "for(let d=1;d<=28;d++){const b=document.createElement('button');b.textContent=d;days.append(b)}"
          "prev.onclick=()=>{if(--m<0){m=11;y--}month.textContent=names[m]+' '+y};</script>",
          "text/html");
    });
    s.Post("/reserve", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("<!doctype html><title>Reserved</title><p>Reserved for " + req.get_param_value("name") +
                          ". Confirmation number 4242.</p>",
                      "text/html");
    });
  });
  site->mount("/fx", VIMGPT_FIXTURES_DIR "/site");
  return site;
}

class AgentE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = start_shop();
    record_ = fs::temp_directory_path() / ("vimgpt-record-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  std::vector<std::string> args(const std::string& objective, std::vector<std::string> extra = {},
                                std::string_view start = "/fx/index.html") {
    std::vector<std::string> all = {
        objective,     "--base-url",      model_.url(), "--api-key",      "test-key",      "--observe", "hybrid",
        "--start-url", site_->url(start), "--record",   record_.string(), "--max-retries", "0"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }

  std::unique_ptr<test::SiteServer> site_;
  FakeModelServer model_{test::Expectations{"test-key", std::string(vision::kDefaultModel), test::default_frame_width(),
                                            1, test::Requirement::Any}};
  fs::path record_;
};

TEST_F(AgentE2E, FiveStepTaskCompletesThroughTheWholeLoop) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    ++step;
    switch (step) {
      case 1:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Search widgets") + R"("})");
      case 2: return ScriptedReply::text(R"({"type": "blue widget"})");
      case 3:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Blue Widget") + R"("})");
      case 4:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Your name") +
                                   R"(", "type": "Ada"})");
      default: return ScriptedReply::text(R"({"done": "Reserved, confirmation 4242"})");
    }
  });
  const CliRun run = run_vimgpt(args("reserve a blue widget for Ada"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.left_behind);
  EXPECT_EQ(run.out, "Reserved, confirmation 4242\n");
  EXPECT_EQ(site_->count("GET", "/search"), 1);
  EXPECT_EQ(site_->count("POST", "/reserve"), 1);  // click+type typed and submitted once
  bool reserved_for_ada = false;
  for (const auto& request : site_->requests()) reserved_for_ada |= request.body == "name=Ada";
  EXPECT_TRUE(reserved_for_ada);
  EXPECT_TRUE(model_.problems().empty()) << model_.problems().front();
  const auto steps = read_steps(record_);
  ASSERT_EQ(steps.size(), 5U);
  EXPECT_EQ(steps[0]["action"].begin().key(), "click");
  EXPECT_TRUE(steps[3]["ok"].get<bool>()) << steps[3]["result"];
  EXPECT_EQ(steps[4]["action"]["done"], "Reserved, confirmation 4242");
  for (const auto& s : steps) {
    ASSERT_FALSE(s["frames"].empty());
    EXPECT_TRUE(fs::exists(record_ / s["frames"][0].get<std::string>()));
    // The capture's phases are each timed inside it, so they add up to no more than it.
    const auto& t = s["timings_ms"];
    EXPECT_GE(t["capture"].get<int>(),
              t["hints"].get<int>() + t["screenshot"].get<int>() + t["draw"].get<int>() + t["check"].get<int>())
        << t;
  }
  // Later prompts carry the history: the model is not blind to what it already did.
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 5U);
  EXPECT_NE(requests[4].text.find("Ada"), std::string::npos);
  EXPECT_TRUE(fs::exists(record_ / "report.html"));
}

// The same loop on the second engine: Firefox over WebDriver BiDi, with the hint library in its sandbox realm.
TEST_F(AgentE2E, TheShopTaskCompletesOnFirefox) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Search widgets") +
                                   R"(", "type": "blue widget"})");
      case 2:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Blue Widget") + R"("})");
      case 3:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Your name") +
                                   R"(", "type": "Ada"})");
      default: return ScriptedReply::text(R"({"done": "Reserved, confirmation 4242"})");
    }
  });
  const CliRun run = run_vimgpt(args("reserve a blue widget for Ada", {"--engine", "firefox"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.left_behind);
  EXPECT_EQ(run.out, "Reserved, confirmation 4242\n");
  EXPECT_EQ(site_->count("GET", "/search"), 1);
  bool reserved_for_ada = false;
  for (const auto& request : site_->requests()) reserved_for_ada |= request.body == "name=Ada";
  EXPECT_TRUE(reserved_for_ada);
  EXPECT_TRUE(model_.problems().empty()) << model_.problems().front();
  EXPECT_EQ(read_steps(record_).size(), 4U);
}

TEST_F(AgentE2E, EveryActionKindActsOnThePage) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1: return ScriptedReply::text(R"({"navigate": ")" + site_->url("/fx/order.html") + R"("})");
      case 2:
        return ScriptedReply::text(R"({"select": ")" + test::label_in_prompt(request.text, "Size") +
                                   R"(", "option": "large"})");
      case 3: return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Note") + R"("})");
      case 4: return ScriptedReply::text(R"({"key": "Tab"})");
      case 5: return ScriptedReply::text(R"({"wait": 0.2})");
      case 6: return ScriptedReply::text(R"({"click_at": [5, 5]})");
      case 7: return ScriptedReply::text(R"({"back": true})");
      default: return ScriptedReply::text(R"({"done": true})");
    }
  });
  const CliRun run = run_vimgpt(args("exercise every action"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto steps = read_steps(record_);
  ASSERT_EQ(steps.size(), 8U);
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) EXPECT_TRUE(steps[i]["ok"].get<bool>()) << steps[i].dump();
  EXPECT_NE(steps[1]["result"].get<std::string>().find("Large"), std::string::npos) << steps[1]["result"];
  EXPECT_EQ(steps[2]["title"], "Order Large");  // the page saw the choice
  EXPECT_NE(steps[3]["result"].get<std::string>().find("pressed Tab"), std::string::npos);
  EXPECT_EQ(steps[7]["url"], site_->url("/fx/index.html"));  // back returned to the start page
}

TEST_F(AgentE2E, ShotSavesTheRequestedFormat) {
  const fs::path image = record_.string() + ".jpg";
  const CliRun run = run_vimgpt({"shot", site_->url("/fx/index.html"), "-o", image.string(), "--viewport", "800x600"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream in(image, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(image);
  ASSERT_GT(bytes.size(), 4U);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0xFF);  // JPEG, from the file name
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0xD8);
  EXPECT_NE(run.err.find("800x600"), std::string::npos) << run.err;
  EXPECT_FALSE(run.left_behind);
}

TEST_F(AgentE2E, ReportOpensWithoutConsoleErrorsAndShowsEveryStep) {
  model_.push_reply(R"({"scroll": "down"})");
  model_.push_reply(R"({"click": "ZZ"})");
  model_.push_reply(R"({"done": "nothing to do"})");
  const CliRun run = run_vimgpt(args("look around"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto steps = read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_FALSE(steps[1]["ok"].get<bool>());  // an unknown label is an error result, not a crash
  EXPECT_NE(steps[1]["result"].get<std::string>().find("ZZ"), std::string::npos);

  // The report is looked at in Chromium, whichever engine made the run: its console errors come as CDP events.
  auto tab = browser::Tab::launch(test::loopback_only_launch(launch::Engine::Chromium));
  ASSERT_OK(tab);
  std::atomic<int> console_errors{0};
  const auto id = browser::connection_of(**tab).subscribe([&](const wire::Event& e) {
    if (e.method == "Runtime.exceptionThrown" ||
        (e.method == "Runtime.consoleAPICalled" && e.params.value("type", "") == "error")) {
      ++console_errors;
    }
  });
  ASSERT_OK(browser::connection_of(**tab).call("Runtime.enable", {}, browser::session_of(**tab)));
  ASSERT_OK((*tab)->navigate("file://" + (record_ / "report.html").string()));
  auto sections = (*tab)->evaluate("document.querySelectorAll('section.step img').length");
  ASSERT_OK(sections);
  EXPECT_EQ(*sections, 3);
  auto loaded = (*tab)->evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)");
  EXPECT_EQ(*loaded, true);
  browser::connection_of(**tab).unsubscribe(id);
  EXPECT_EQ(console_errors.load(), 0);
}

TEST_F(AgentE2E, StepBudgetEndsWithExitCode2) {
  model_.set_default_reply(R"({"scroll": "down"})");
  const CliRun run = run_vimgpt(args("scroll forever", {"--max-steps", "2"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(read_steps(record_).size(), 2U);
}

TEST_F(AgentE2E, SameActionOnAnUnchangedPageIsStuck) {
  // "Free delivery" text has no hint; clicking the heading label-less area via click_at changes nothing.
  model_.set_default_reply(R"({"click_at": [900, 600]})");
  const CliRun run = run_vimgpt(args("click nothing", {"--max-steps", "10"}));
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const auto steps = read_steps(record_);
  ASSERT_EQ(steps.size(), 4U);
  // The third repeat was reported to the model before the run ended.
  EXPECT_NE(steps[2]["result"].get<std::string>().find("third time"), std::string::npos);
  EXPECT_NE(model_.requests()[3].text.find("third time"), std::string::npos);
}

TEST_F(AgentE2E, GoingRoundALoopBetweenTwoPagesIsStuckAfterANudge) {
  // Onward from page one to page two and back: each click works, and the pages come back as they were.
  model_.set_responder([&](const test::ReceivedRequest& request) {
    return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Onward") + R"("})");
  });
  const CliRun run = run_vimgpt(args("go round", {"--max-steps", "20"}, "/one"));
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const auto steps = read_steps(record_);
  // Page one at steps 1, 3 and 5: the third time is told to the model, the fourth (step 7) ends the run.
  ASSERT_EQ(steps.size(), 7U);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(steps[i]["ok"].get<bool>()) << steps[i];
  EXPECT_TRUE(test::has(steps[4]["result"], "going round in a loop")) << steps[4];
  EXPECT_TRUE(test::has(steps[4]["result"], "steps 1, 3 and now")) << steps[4];
  EXPECT_NE(model_.requests()[5].text.find("going round in a loop"), std::string::npos);
  EXPECT_TRUE(test::has(steps[6]["result"], "taken 4 times")) << steps[6];
  EXPECT_TRUE(test::has(steps[6]["url"], "/one")) << steps[6];
  EXPECT_EQ(site_->count("GET", "/one"), 4);  // the fourth click was never made
}

// Paging a month picker back: the same click on the same labels, each showing another month. A click that changes
// what a person sees is progress, never a loop (the labels and the address alone are the same each time).
void expect_paging_back_is_progress(FakeModelServer& model, const CliRun& run,
                                    const std::vector<nlohmann::json>& steps) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "November 2025\n");
  ASSERT_EQ(steps.size(), 5U);
  for (const auto& step : steps) EXPECT_FALSE(test::has(step["result"], "Warning")) << step;
  for (const auto& request : model.requests()) EXPECT_EQ(request.text.find("Warning"), std::string::npos);
}

TEST_F(AgentE2E, PagingACalendarByItsLabelIsProgressNotALoop) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    if (++step <= 4)
      return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Prev") + R"("})");
    return ScriptedReply::text(R"({"done": "November 2025"})");
  });
  const CliRun run = run_vimgpt(args("go back four months", {"--max-steps", "10"}, "/calendar"));
  expect_paging_back_is_progress(model_, run, read_steps(record_));
}

TEST_F(AgentE2E, PagingACalendarAtAPointIsProgressNotALoop) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest&) {
    // Prev's middle, in pixels of the frame (the viewport scaled down to its width).
    return ScriptedReply::text(++step <= 4 ? R"({"click_at": [30, 12]})" : R"({"done": "November 2025"})");
  });
  const CliRun run = run_vimgpt(args("go back four months", {"--max-steps", "10"}, "/calendar"));
  expect_paging_back_is_progress(model_, run, read_steps(record_));
}

TEST_F(AgentE2E, ActionsThatNoLongerChangeThePageAreStuckAfterANudge) {
  // A page one scroll tall: the first scroll reaches its end; after it, a scroll, a key and a click on nothing in
  // turn, each different from the last, and none changes the page.
  const std::vector<std::string> cycle = {R"({"scroll": "down"})", R"({"key": "End"})", R"({"click_at": [600, 200]})"};
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest&) { return ScriptedReply::text(cycle[step++ % 3]); });
  const CliRun run = run_vimgpt(args("scroll on", {"--max-steps", "20"}, "/tall"));
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const auto steps = read_steps(record_);
  // Steps 2 to 5 changed nothing: step 6 tells the model; steps 2 to 7 changed nothing: step 8 ends the run.
  ASSERT_EQ(steps.size(), 8U);
  EXPECT_TRUE(steps[0]["ok"].get<bool>()) << steps[0];
  EXPECT_TRUE(test::has(steps[5]["result"], "the last 4 actions changed nothing on the page")) << steps[5];
  EXPECT_NE(model_.requests()[6].text.find("the last 4 actions changed nothing"), std::string::npos);
  EXPECT_TRUE(test::has(steps[7]["result"], "the last 6 actions changed nothing on the page")) << steps[7];
  EXPECT_NE(run.err.find("stuck"), std::string::npos) << run.err;
}

TEST_F(AgentE2E, ActionsFileReplaysWithoutAModel) {
  const fs::path script = fs::temp_directory_path() / ("vimgpt-actions-" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(script) << R"({"navigate": ")" << site_->url("/fx/item.html") << "\"}\n"
                        << R"({"navigate": ")" << site_->url("/search?q=scripted") << "\"}\n"
                        << R"({"done": "replayed"})"
                        << "\n";
  const CliRun run = run_vimgpt(
      {"--actions", script.string(), "--start-url", site_->url("/fx/index.html"), "--record", record_.string()});
  fs::remove(script);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "replayed\n");
  EXPECT_EQ(site_->count("GET", "/search"), 1);
  EXPECT_EQ(model_.request_count(), 0U);
}

TEST_F(AgentE2E, InvalidFlagsExit64BeforeABrowserStarts) {
  EXPECT_EQ(run_vimgpt({"x", "--viewport", "0x0", "--base-url", model_.url()}).exit_code, 64);
  EXPECT_EQ(run_vimgpt({"x", "--img-res", "-5", "--base-url", model_.url()}).exit_code, 64);
  EXPECT_EQ(run_vimgpt({"x", "--provider", "nope", "--base-url", model_.url()}).exit_code, 64);
  EXPECT_EQ(run_vimgpt({"x", "--actions", "/nonexistent.jsonl"}).exit_code, 64);
  const CliRun no_model = run_vimgpt({"x"});
  EXPECT_EQ(no_model.exit_code, 64);
  EXPECT_NE(no_model.err.find("OPENAI_API_KEY"), std::string::npos);
  EXPECT_NE(no_model.err.find("ANTHROPIC_API_KEY"), std::string::npos);
  EXPECT_NE(no_model.err.find("--base-url"), std::string::npos);
}

TEST_F(AgentE2E, CtrlCEndsCleanlyWithARecordingAndNoBrowserLeft) {
  // The model answers slowly; SIGINT arrives while the second step waits for it.
  model_.push_reply(R"({"scroll": "down"})");
  model_.set_default_reply(R"({"scroll": "down"})");
  std::atomic<bool> sent{false};
  model_.set_responder([&](const test::ReceivedRequest&) {
    return ScriptedReply::slow(std::chrono::milliseconds(1500), R"({"scroll": "up"})");
  });
  const CliRun run = run_vimgpt(args("wait to be interrupted"), [&](pid_t pid) {
    // Wait for the first step to be recorded, then interrupt.
    for (int i = 0; i < 600 && read_steps(record_).empty(); ++i) ::poll(nullptr, 0, 50);
    ::kill(pid, SIGINT);
    sent = true;
  });
  ASSERT_TRUE(sent);
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_GE(read_steps(record_).size(), 1U);
  EXPECT_TRUE(fs::exists(record_ / "report.html"));
  EXPECT_FALSE(run.left_behind);  // no Chromium of that run, no profile folder
}

TEST_F(AgentE2E, CtrlCCutsAWaitShortAndRecordsIt) {
  // The model asks for the longest wait; SIGINT arrives once the request is in, so during the call or the wait.
  model_.push_reply(R"({"wait": 10})");
  model_.set_default_reply(R"({"done": null})");
  std::atomic<bool> sent{false};
  const CliRun run = run_vimgpt(args("wait a while"), [&](pid_t pid) {
    for (int i = 0; i < 600 && model_.request_count() == 0; ++i) ::poll(nullptr, 0, 50);
    ::kill(pid, SIGINT);
    sent = true;
  });
  ASSERT_TRUE(sent);
  EXPECT_EQ(run.exit_code, 130) << run.err;
  const auto steps = read_steps(record_);
  ASSERT_EQ(steps.size(), 1U) << run.err;
  EXPECT_EQ(steps[0]["action"], nlohmann::json::parse(R"({"wait": 10})"));
  EXPECT_NE(steps[0]["result"].get<std::string>().find("interrupted (Ctrl-C)"), std::string::npos) << steps[0];
  // Cut short: the 10 s asked for were not waited out (a bound with 10 s to spare, not a speed figure).
  EXPECT_LT(steps[0]["timings_ms"]["act"].get<int>(), 10000) << steps[0];
  EXPECT_EQ(model_.request_count(), 1U);
}

}  // namespace
}  // namespace vimgpt
