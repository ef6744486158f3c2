// Faults in the middle of a run, through the real vimgpt binary: the browser killed, the renderer killed, a
// download, and a person confirming each action. The fake model is the hook: it injects the fault while
// vimgpt waits for its reply, so the fault lands at a known point of the loop.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "support/assertions.h"
#include "support/browser_options.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::has;
using test::ScriptedReply;

std::string contents(const fs::path& path) {
  std::stringstream out;
  out << std::ifstream(path, std::ios::binary).rdbuf();
  return out.str();
}

class RecoveryE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([](httplib::Server& s) {
      s.Get("/a", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<!doctype html><title>Start</title><a href='/b' style='font-size:30px'>Go to B</a>",
                        "text/html");
      });
      s.Get("/b", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<!doctype html><title>Second</title><p>Page B</p>"
            "<a href='/file' style='font-size:30px'>Get report</a>",
            "text/html");
      });
      // A link to another site (localhost, on this port) beside one on this site, and a field.
      s.Get("/risky", [](const httplib::Request& req, httplib::Response& res) {
        const std::string host = req.get_header_value("Host");
        const std::string elsewhere = "http://localhost" + host.substr(host.find(':')) + "/b";
        res.set_content(
            "<!doctype html><title>Risky</title><a href='/b' style='font-size:30px'>Same site</a> <a href='" +
                elsewhere + "' style='font-size:30px'>Elsewhere</a> <input aria-label='Password'>",
            "text/html");
      });
      s.Get("/file", [](const httplib::Request&, httplib::Response& res) {
        res.set_header("Content-Disposition", "attachment; filename=\"report.csv\"");
        res.set_content("a,b\n1,2\n", "text/csv");
      });
    });
    record_ = fs::temp_directory_path() / ("vimgpt-recovery-e2e-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(record_);
  }
  void TearDown() override { fs::remove_all(record_); }

  test::CliRun run(const std::string& start, const std::vector<std::string>& extra = {}, const std::string& input = {},
                   const std::function<void(pid_t)>& on_started = {}) {
    std::vector<std::string> args = {"get the report", "--base-url",  model_.url(),  "--api-key",       "test-key",
                                     "--observe",      "hybrid",      "--start-url", site_->url(start), "--record",
                                     record_.string(), "--settle-ms", "2000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_vimgpt(args, on_started, input);
  }

  std::unique_ptr<test::SiteServer> site_;
  test::FakeModelServer model_{test::Expectations{"test-key", std::string(vision::kDefaultModel),
                                                  test::default_frame_width(), 1, test::Requirement::Any}};
  fs::path record_;
};

TEST_F(RecoveryE2E, KilledBrowserIsStartedAgainAtTheLastPageAndTheRunGoesOn) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1: return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Go to B") + R"("})");
      case 2:
        EXPECT_TRUE(test::kill_and_wait(test::run_browser_pid()));  // while vimgpt waits for this reply
        return ScriptedReply::text(R"({"scroll": "down"})");
      default: return ScriptedReply::text(R"({"done": "made it"})");
    }
  });
  const auto result = run("/a");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "made it\n");
  EXPECT_FALSE(result.left_behind);  // neither the dead browser nor the new one outlives the run
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_FALSE(steps[1]["ok"].get<bool>());  // the scroll met a dead browser
  EXPECT_TRUE(has(steps[2]["recovered"], "started again (restart 1 of 2)")) << steps[2];
  EXPECT_TRUE(has(steps[2]["url"], "/b")) << steps[2];
  EXPECT_EQ(site_->count("GET", "/b"), 2);  // the last page, loaded again in the new browser
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_NE(requests[2].text.find("started again"), std::string::npos);  // the model is told
  EXPECT_NE(result.err.find("recovered: the browser exited"), std::string::npos) << result.err;
}

TEST_F(RecoveryE2E, WithNoRestartsLeftTheRunEndsNamingTheCause) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest&) {
    if (++step == 1) {
      EXPECT_TRUE(test::kill_and_wait(test::run_browser_pid()));
    }
    return ScriptedReply::text(R"({"scroll": "down"})");
  });
  const auto result = run("/a", {"--max-restarts", "0"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const std::string browser = test::on_firefox() ? "Firefox" : "Chromium";
  EXPECT_NE(result.err.find("error: the browser exited (" + browser + " was killed by signal 9)"), std::string::npos)
      << result.err;
  EXPECT_FALSE(result.left_behind);
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 1U);  // the finished step is kept
  EXPECT_FALSE(steps[0]["ok"].get<bool>());
  EXPECT_EQ(model_.requests().size(), 1U);
}

TEST_F(RecoveryE2E, CrashedRendererIsLoadedAgain) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1: return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Go to B") + R"("})");
      case 2: {
        const auto renderers = test::run_browser_helpers(test::on_firefox() ? "tab" : "renderer");
        EXPECT_FALSE(renderers.empty());
        for (pid_t renderer : renderers) EXPECT_TRUE(test::kill_and_wait(renderer));
        // A second for the browser to show its crash page first: Firefox commits its "tab crashed" page in the
        // context, sometimes before the next capture and sometimes after (a run under load met the first).
        return ScriptedReply::text(R"({"wait": 1})");
      }
      default: return ScriptedReply::text(R"({"done": "still here"})");
    }
  });
  const auto result = run("/a");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_TRUE(has(steps[2]["recovered"], "the page crashed")) << steps[2];
  EXPECT_TRUE(has(steps[2]["url"], "/b")) << steps[2];
  EXPECT_EQ(site_->count("GET", "/b"), 2);
  EXPECT_GE(steps[2]["hint_count"].get<int>(), 1);  // a real page again, with its link
}

TEST_F(RecoveryE2E, DownloadIsKeptInTheRunFolderAndTheModelIsTold) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    if (++step == 1)
      return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Get report") + R"("})");
    return ScriptedReply::text(R"({"done": "saved"})");
  });
  const auto result = run("/b");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const fs::path saved = record_ / "downloads" / "report.csv";
  EXPECT_EQ(contents(saved), "a,b\n1,2\n");
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_TRUE(has(steps[0]["result"], "downloaded " + site_->url("/file") + " (8 bytes) to " + saved.string()))
      << steps[0];
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_NE(requests[1].text.find("report.csv"), std::string::npos);
}

TEST_F(RecoveryE2E, ConfirmLetsThePersonDeclineEditAndQuit) {
  model_.set_responder([&](const test::ReceivedRequest& request) {
    return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Go to B") + R"("})");
  });
  const auto result = run("/a", {"--confirm"}, "n\ne\n{\"key\": \"Tab\"}\nq\n");
  EXPECT_EQ(result.exit_code, 130) << result.err;
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_FALSE(steps[0]["ok"].get<bool>());
  EXPECT_TRUE(has(steps[0]["result"], "declined")) << steps[0];
  EXPECT_EQ(steps[1]["action"], nlohmann::json::parse(R"({"key": "Tab"})"));  // as the person edited it
  EXPECT_TRUE(steps[1]["ok"].get<bool>()) << steps[1];
  EXPECT_TRUE(has(steps[2]["result"], "ended the run")) << steps[2];
  EXPECT_EQ(site_->count("GET", "/b"), 0);  // the proposed click never ran
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_NE(requests[1].text.find("declined"), std::string::npos);
  EXPECT_NE(result.err.find("run it? [y]es, [n]o, [e]dit, [q]uit"), std::string::npos);
}

TEST_F(RecoveryE2E, ConfirmWithNoAnswerLeftRunsNothing) {
  model_.set_responder([&](const test::ReceivedRequest& request) {
    return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Go to B") + R"("})");
  });
  const auto result = run("/a", {"--confirm"});  // standard input is empty
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_EQ(site_->count("GET", "/b"), 0);
}

TEST_F(RecoveryE2E, ConfirmRiskyAsksOnlyBeforeLeavingTheSitesOrTypingASecret) {
  std::string elsewhere;
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1: return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Same site") + R"("})");
      case 2: return ScriptedReply::text(R"({"back": true})");
      case 3: return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Elsewhere") + R"("})");
      case 4:
        return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Password") +
                                   R"(", "type": "<secret:PW>"})");
      case 5: return ScriptedReply::text(R"({"navigate": ")" + elsewhere + R"("})");
      case 6: return ScriptedReply::text(R"({"navigate": ")" + elsewhere + R"(?again"})");  // a site let in: not asked
      default: return ScriptedReply::text(R"({"done": "ok"})");
    }
  });
  elsewhere = "http://localhost:" + std::to_string(site_->port()) + "/b";
  // Asked three times: declined the link elsewhere, let the secret be typed, let the run go to the other site.
  const auto result = run("/risky", {"--confirm-risky", "--secret", "PW=hunter2"}, "n\ny\ny\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::size_t asked = 0;
  for (auto at = result.err.find("run it?"); at != std::string::npos; at = result.err.find("run it?", at + 1)) ++asked;
  EXPECT_EQ(asked, 3U) << result.err;
  EXPECT_TRUE(has(result.err, "ask first: it leaves the task's sites for localhost")) << result.err;
  EXPECT_TRUE(has(result.err, "ask first: it types the secret PW")) << result.err;
  EXPECT_FALSE(has(result.err, "hunter2"));
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 7U);
  EXPECT_TRUE(steps[0]["ok"].get<bool>()) << steps[0];  // a link on the start page's site: not asked
  EXPECT_TRUE(has(steps[2]["result"], "declined")) << steps[2];
  EXPECT_TRUE(steps[3]["ok"].get<bool>()) << steps[3];
  EXPECT_TRUE(steps[4]["ok"].get<bool>()) << steps[4];
  EXPECT_TRUE(steps[5]["ok"].get<bool>()) << steps[5];
  // /b: the same-site link, then the other site's page twice; the declined link never loaded.
  EXPECT_EQ(site_->count("GET", "/b"), 3);
}

TEST_F(RecoveryE2E, KilledVimgptKeepsEveryFinishedStepAndItsBrowserGoes) {
  std::atomic<pid_t> vimgpt{0};
  std::atomic<pid_t> browser{0};
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest&) {
    if (++step == 3) {  // two steps are finished and recorded; the third is waiting for this reply
      browser = test::run_browser_pid();
      EXPECT_TRUE(test::kill_and_wait(vimgpt));
    }
    return ScriptedReply::text(R"({"key": "Tab"})");
  });
  const auto result = run("/a", {}, {}, [&](pid_t pid) { vimgpt = pid; });
  EXPECT_EQ(result.exit_code, 128 + SIGKILL);
  ASSERT_GT(browser.load(), 0);
  EXPECT_TRUE(test::wait_for_exit(browser));  // Chromium dies with its parent, killed or not

  const auto steps = test::read_steps(record_);  // every line parses: nothing torn
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(steps[1]["step"], 2);

  // A line torn by a crash mid-write is skipped by `vimgpt report`, which rebuilds the page from the rest.
  std::ofstream(record_ / "steps.jsonl", std::ios::app) << R"({"step": 3, "url": "http://127.)";
  const auto report = test::run_vimgpt({"report", record_.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = contents(record_ / "report.html");
  std::size_t sections = 0;
  for (auto at = html.find("<section"); at != std::string::npos; at = html.find("<section", at + 1)) ++sections;
  EXPECT_EQ(sections, 2U);
}

}  // namespace
}  // namespace vimgpt
