// The live view through the real vimgpt binary: a person watches the run in a real browser (Playwright Test), pauses
// it, takes the page over and hands it back; a handoff and a question wait for them; without a live view a batch's
// handoff ends needs_input; the page is refused without its token or from another Origin.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/free_port.h"
#include "support/live_client.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::FakeModelServer;
using test::ScriptedReply;

// The field a person types the password into, placed where the spec clicks it (viewport CSS px).
constexpr int kPasswordX = 300;
constexpr int kPasswordY = 220;
constexpr const char* kPassword = "hunter2";
constexpr const char* kToken = "0123456789abcdef0123456789abcdef";

// A shop with a sign-in form whose fields sit at known places.
void add_live_site(httplib::Server& server) {
  server.Get("/live/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(
        "<!doctype html><title>Shop</title><h1>Shop</h1>"
        "<a href='/live/login' style='position:absolute;left:100px;top:100px;font-size:24px'>Sign in</a>",
        "text/html");
  });
  server.Get("/live/login", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(
        "<!doctype html><title>Sign in</title><form method='post' action='/live/login'>"
        "<input name='email' aria-label='Email' style='position:absolute;left:100px;top:100px;width:400px;height:40px'>"
        "<input name='password' type='password' aria-label='Password' "
        "style='position:absolute;left:100px;top:200px;width:400px;height:40px'>"
        "<button style='position:absolute;left:100px;top:300px;width:200px;height:40px'>Log in</button></form>",
        "text/html");
  });
  server.Post("/live/login", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("<!doctype html><title>Welcome</title><h1>Signed in</h1>", "text/html");
  });
}

// A gate the fake model waits at before answering a step, opened by the test (or the spec, over HTTP).
class Gates {
 public:
  void open(int step) {
    std::scoped_lock lock(mutex_);
    opened_ = std::max(opened_, step);
    changed_.notify_all();
  }
  // The model's hold for `step`: it has arrived; it answers once the gate is open (bounded, so a stuck spec fails).
  void pass(int step) {
    std::unique_lock lock(mutex_);
    arrived_ = std::max(arrived_, step);
    changed_.notify_all();
    changed_.wait_for(lock, std::chrono::seconds(60), [&] { return opened_ >= step; });
  }
  bool wait_arrived(int step) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return arrived_ >= step; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int opened_ = 0;
  int arrived_ = 0;
};

bool has_text(const test::ReceivedRequest& request, const std::string& text) {
  return request.text.find(text) != std::string::npos;
}

// The next message telling of a run waiting for the person (`kind`: "ask" or "handoff") with `saying` in its message:
// a "run" message, or the "hello" a page gets when it opens.
std::optional<nlohmann::json> waiting_tile(test::LiveClient& watcher, const std::string& kind,
                                           const std::string& saying = {}) {
  std::optional<nlohmann::json> tile;
  watcher.wait_json([&](const nlohmann::json& message) {
    const auto tiles = message.value("type", "") == "hello" ? message["runs"]
                       : message.value("type", "") == "run" ? nlohmann::json::array({message["run"]})
                                                            : nlohmann::json::array();
    for (const auto& one : tiles) {
      if (one.value("state", "") == "waiting" && one.value("waiting_for", "") == kind &&
          one.value("message", "").find(saying) != std::string::npos)
        tile = one;
    }
    return tile.has_value();
  });
  return tile;
}

class LiveView : public ::testing::Test {
 protected:
  void SetUp() override {
    record_ = fs::temp_directory_path() / ("vimgpt-live-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(record_);
    ::setenv("VIMGPT_LIVE_TOKEN", kToken, 1);
  }
  void TearDown() override {
    ::unsetenv("VIMGPT_LIVE_TOKEN");
    fs::remove_all(record_);
  }

  std::vector<std::string> args(const std::string& objective, int live_port) {
    return {objective,   "--base-url",     model_.url(),
            "--api-key", "test-key",       "--observe",
            "hybrid",    "--start-url",    site_.url("/live/"),
            "--record",  record_.string(), "--max-retries",
            "0",         "--live",         "127.0.0.1:" + std::to_string(live_port)};
  }

  Gates gates_;
  test::SiteServer site_{[this](httplib::Server& server) {
    add_live_site(server);
    server.Get("/gate", [this](const httplib::Request& request, httplib::Response& response) {
      gates_.open(std::stoi(request.get_param_value("step")));
      response.set_content("open", "text/plain");
    });
  }};
  FakeModelServer model_{test::Expectations{"test-key", std::string(vision::kDefaultModel), test::default_frame_width(),
                                            1, test::Requirement::Any}};
  fs::path record_;
};

std::string login_body(const test::SiteServer& site) {
  for (const auto& request : site.requests()) {
    if (request.method == "POST" && request.path == "/live/login") return request.body;
  }
  return "";
}

TEST_F(LiveView, APersonWatchesPausesTakesOverAndHandsBack) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    ScriptedReply reply;
    if (++step == 1) {
      reply = ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Sign in") + R"("})");
      reply.hold = [this] { gates_.pass(1); };
    } else if (step == 2) {
      reply = ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Email") +
                                  R"(", "type": "ada@example.com", "enter": false})");
      reply.hold = [this] { gates_.pass(2); };
    } else if (step == 3) {
      reply = ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Log in") + R"("})");
    } else {
      reply = ScriptedReply::text(R"({"done": "signed in"})");
    }
    return reply;
  });
  const int port = test::free_loopback_port();
  const std::string live = "http://127.0.0.1:" + std::to_string(port);
  test::PlaywrightRun played;
  const auto run = test::run_vimgpt(args("sign in to the shop", port), [&](pid_t) {
    ASSERT_TRUE(gates_.wait_arrived(1)) << "the run never asked the model";
    // No token, a wrong one, another site's Origin: refused, before any page or socket.
    httplib::Client client(live);
    EXPECT_EQ(client.Get("/")->status, 401);
    EXPECT_EQ(client.Get("/?token=nottheone")->status, 401);
    EXPECT_EQ(client.Get("/ws?token=" + std::string(kToken), {{"Origin", "http://evil.example"}})->status, 403);
    EXPECT_EQ(test::LiveClient(port, kToken, "http://evil.example").refused_status(), 403);
    const auto page = client.Get("/?token=" + std::string(kToken));
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    EXPECT_EQ(page->get_header_value("X-Frame-Options"), "DENY");
    EXPECT_NE(page->body.find("vimgpt live"), std::string::npos);

    const fs::path project = record_.parent_path() / (record_.filename().string() + "-playwright");
    fs::create_directories(project);
    fs::copy_file(VIMGPT_SOURCE_DIR "/tests/fixtures/live/live_view.spec.mjs", project / "live_view.spec.mjs",
                  fs::copy_options::overwrite_existing);
    played =
        test::run_playwright(project / "live_view.spec.mjs",
                             "LIVE_URL='" + live + "/?token=" + kToken + "' GATE_URL='" + site_.url("/gate") +
                                 "' FIELD_X=" + std::to_string(kPasswordX) + " FIELD_Y=" + std::to_string(kPasswordY) +
                                 " VIEWPORT_WIDTH=1080 PASSWORD=" + kPassword);
    fs::remove_all(project);
    gates_.open(2);  // a spec that failed early leaves no run waiting
  });
  EXPECT_EQ(played.status, 0) << played.output;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "signed in\n");
  // The person's password reached the site; the agent's email too.
  EXPECT_EQ(login_body(site_), std::string("email=ada%40example.com&password=") + kPassword);
  EXPECT_TRUE(model_.problems().empty()) << model_.problems().front();
  // The model was told what the person did, never what they typed.
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 4U);
  EXPECT_FALSE(has_text(requests[1], "the person had the page"));
  EXPECT_TRUE(has_text(requests[2], "the person had the page")) << requests[2].text;
  EXPECT_TRUE(has_text(requests[2], "7 characters typed")) << requests[2].text;
  for (const auto& request : requests) EXPECT_FALSE(has_text(request, kPassword));
  // The takeover is in the record, on the step after it.
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 4U);
  ASSERT_TRUE(steps[2].contains("takeover")) << steps[2].dump();
  EXPECT_NE(steps[2]["takeover"]["did"].get<std::string>().find("1 click"), std::string::npos) << steps[2]["takeover"];
  EXPECT_EQ(steps[2]["takeover"]["title"], "Sign in");
  EXPECT_FALSE(steps[1].contains("takeover"));
}

TEST_F(LiveView, AHandoffAndAQuestionWaitForThePerson) {
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    switch (++step) {
      case 1: {
        auto reply = ScriptedReply::text(R"({"ask": "Which colour?"})");
        reply.hold = [this] { gates_.pass(1); };
        return reply;
      }
      case 2: return ScriptedReply::text(R"({"handoff": "Please sign in, then press Resume"})");
      default:
        return ScriptedReply::text(has_text(request, "\"Welcome\"") ? R"({"done": "signed in"})"
                                                                    : R"({"done": "not signed in"})");
    }
  });
  const int port = test::free_loopback_port();
  const auto run = test::run_vimgpt(args("buy a shirt", port), [&](pid_t) {
    ASSERT_TRUE(gates_.wait_arrived(1)) << "the run never asked the model";
    test::LiveClient watcher(port, kToken, "http://127.0.0.1:" + std::to_string(port));
    ASSERT_TRUE(watcher.connected()) << watcher.refused_status();
    gates_.open(1);
    const auto waiting = [&watcher](const std::string& kind) { return waiting_tile(watcher, kind); };
    const auto asked = waiting("ask");
    ASSERT_TRUE(asked) << "the question never reached the live view";
    EXPECT_EQ((*asked)["message"], "Which colour?");
    const int run_id = (*asked)["id"];
    watcher.send({{"do", "resume"}, {"run", run_id}, {"answer", "blue"}});
    const auto handed = waiting("handoff");
    ASSERT_TRUE(handed) << "the handoff never reached the live view";
    EXPECT_EQ((*handed)["message"], "Please sign in, then press Resume");
    ASSERT_TRUE(watcher.wait_frame('L')) << "the tab is not streamed to a watcher";
    // The person signs in by hand: the link, then the form, as fractions of the frame.
    const auto at = [](double x, double y) { return nlohmann::json{{"x", x / 1080.0}, {"y", y / 720.0}}; };
    auto click = [&](double x, double y) {
      nlohmann::json input = at(x, y);
      input["kind"] = "click";
      watcher.send({{"do", "input"}, {"run", run_id}, {"input", input}});
    };
    click(130, 112);  // "Sign in"
    watcher.send({{"do", "input"}, {"run", run_id}, {"input", {{"kind", "key"}, {"keys", "Hyper+Q"}}}});
    ASSERT_TRUE(watcher.wait_json([](const nlohmann::json& message) {
      return message.value("type", "") == "error";  // not a key vimgpt can press: said, and the takeover goes on
    }));
    // A page that sends a field of another type is told which; the run, and the takeover, go on.
    const auto error_naming = [](std::string field) {
      return [field](const nlohmann::json& message) {
        return message.value("type", "") == "error" && message.value("message", "").find(field) != std::string::npos;
      };
    };
    watcher.send({{"do", "input"}, {"run", run_id}, {"input", {{"kind", "click"}, {"x", "130"}, {"y", 0.1}}}});
    ASSERT_TRUE(watcher.wait_json(error_naming("\"x\" takes")));
    watcher.send({{"do", "pause"}, {"run", std::to_string(run_id)}});
    ASSERT_TRUE(watcher.wait_json(error_naming("\"run\" takes")));
    click(300, 120);  // Email
    watcher.send({{"do", "input"}, {"run", run_id}, {"input", {{"kind", "text"}, {"text", "ada@example.com"}}}});
    click(300, 220);  // Password
    watcher.send({{"do", "input"}, {"run", run_id}, {"input", {{"kind", "text"}, {"text", "s3cret"}}}});
    watcher.send({{"do", "input"}, {"run", run_id}, {"input", {{"kind", "key"}, {"keys", "Enter"}}}});
    watcher.send({{"do", "resume"}, {"run", run_id}});
    EXPECT_TRUE(watcher.wait_json([](const nlohmann::json& message) {
      return message.value("type", "") == "run" && message["run"].contains("outcome");
    }));
  });
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "signed in\n");
  EXPECT_EQ(login_body(site_), "email=ada%40example.com&password=s3cret");
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_TRUE(has_text(requests[1], "the user answered: \"blue\"")) << requests[1].text;
  EXPECT_TRUE(has_text(requests[2], "the person had the page")) << requests[2].text;
  EXPECT_FALSE(has_text(requests[2], "s3cret"));
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_TRUE(steps[1].contains("takeover"));
  EXPECT_EQ(steps[1]["takeover"]["title"], "Welcome");
}

// --confirm-risky with a live view: the question is asked in its answer box (the terminal, whose input is closed, would
// end the run). An answer it cannot read is asked again; "no" skips the action and the model is told; "yes" lets it
// run, and its site joins the task's.
TEST_F(LiveView, ARiskyActionIsAskedInTheLiveViewAndRunsOnlyOnAYes) {
  const std::string elsewhere = "http://localhost:" + std::to_string(site_.port()) + "/live/login";
  int step = 0;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    if (++step == 1) {
      auto reply = ScriptedReply::text(R"({"navigate": ")" + elsewhere + R"("})");
      reply.hold = [this] { gates_.pass(1); };
      return reply;
    }
    if (step == 2) return ScriptedReply::text(R"({"navigate": ")" + elsewhere + R"("})");
    return ScriptedReply::text(has_text(request, "The current page is " + elsewhere) ? R"({"done": "there"})"
                                                                                     : R"({"done": "not there"})");
  });
  const int port = test::free_loopback_port();
  auto arguments = args("open the sign-in page", port);
  arguments.emplace_back("--confirm-risky");
  const auto run = test::run_vimgpt(arguments, [&](pid_t) {
    ASSERT_TRUE(gates_.wait_arrived(1)) << "the run never asked the model";
    test::LiveClient watcher(port, kToken, "http://127.0.0.1:" + std::to_string(port));
    ASSERT_TRUE(watcher.connected()) << watcher.refused_status();
    gates_.open(1);
    const auto asked = waiting_tile(watcher, "ask", "Step 1 proposes {\"navigate\":");
    ASSERT_TRUE(asked) << "the confirmation never reached the live view";
    EXPECT_NE((*asked)["message"].get<std::string>().find("ask first, it leaves the task's sites for localhost"),
              std::string::npos)
        << (*asked)["message"];
    const int run_id = (*asked)["id"];
    watcher.send({{"do", "resume"}, {"run", run_id}, {"answer", "maybe"}});
    ASSERT_TRUE(waiting_tile(watcher, "ask", "\"maybe\" is not an answer to this. Step 1 proposes"));
    watcher.send({{"do", "resume"}, {"run", run_id}, {"answer", "no"}});
    ASSERT_TRUE(waiting_tile(watcher, "ask", "Step 2 proposes")) << "the second proposal was not asked";
    watcher.send({{"do", "resume"}, {"run", run_id}, {"answer", "yes"}});
  });
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "there\n");
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_TRUE(has_text(requests[1], "the person declined this action")) << requests[1].text;
  const auto steps = test::read_steps(record_);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_EQ(steps[1]["result"], "loaded " + elsewhere) << steps[1];
  const auto loaded = site_.requests();
  EXPECT_TRUE(
      std::any_of(loaded.begin(), loaded.end(), [](const auto& request) { return request.path == "/live/login"; }));
}

TEST_F(LiveView, WithoutALiveViewABatchHandoffEndsNeedsInputAndTheOthersGoOn) {
  model_.set_responder([&](const test::ReceivedRequest& request) {
    return ScriptedReply::text(has_text(request, "log in for me") ? R"({"handoff": "Please log in"})"
                                                                  : R"({"done": "fine"})");
  });
  const fs::path tasks = record_.string() + "-tasks.jsonl";
  const fs::path results = record_.string() + "-results.jsonl";
  std::ofstream(tasks) << R"({"id": "login", "objective": "log in for me", "start_url": ")" << site_.url("/live/")
                       << "\"}\n"
                       << R"({"id": "other", "objective": "look around", "start_url": ")" << site_.url("/live/")
                       << "\"}\n";
  const auto run = test::run_vimgpt({"batch", tasks.string(), "--out", results.string(), "--parallel", "2",
                                     "--base-url", model_.url(), "--api-key", "test-key", "--max-retries", "0"});
  std::map<std::string, nlohmann::json> lines;
  std::ifstream in(results);
  for (std::string line; std::getline(in, line);) {
    auto parsed = nlohmann::json::parse(line);
    lines[parsed["id"]] = parsed;
  }
  fs::remove(tasks);
  fs::remove(results);
  EXPECT_EQ(run.exit_code, 0) << run.err;  // every task has its line
  ASSERT_EQ(lines.size(), 2U) << run.err;
  EXPECT_EQ(lines["login"]["status"], "needs_input");
  EXPECT_EQ(lines["login"]["question"], "Please log in");
  EXPECT_EQ(lines["other"]["status"], "done");
  EXPECT_EQ(lines["other"]["answer"], "fine");
}

}  // namespace
}  // namespace vimgpt
