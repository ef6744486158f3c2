// Replay, the run cache and export, through the real vimgpt binary: a task recorded once with the fake model,
// then done again with no model, healed by one model call where the page changed, stopped where it cannot go
// on, kept in and replayed from a cache, and run as a Playwright Test script by Playwright itself.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/batch_world.h"
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

// How the book page looks today: as recorded, with its reservation link renamed and moved, or without it.
enum class BookPage { AsRecorded, LinkRenamedAndMoved, LinkGone };

// A small library: search → results → a book → a reservation form the server records.
struct Library {
  std::atomic<BookPage> book{BookPage::AsRecorded};
  std::unique_ptr<test::SiteServer> server;

  Library() {
    server = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      s.Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<!doctype html><title>Library</title><h1>City Library</h1><form action='/search'>"
            "<input name='q' placeholder='Search the catalogue'><button>Search</button></form>"
            "<p><a href='/hours'>Opening hours</a></p>",
            "text/html");
      });
      s.Get("/search", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content("<!doctype html><title>Results</title><h1>Results for " + req.get_param_value("q") +
                            "</h1><ul><li><a href='/book/1'>Moby Dick</a></li><li><a href='/book/2'>Dune</a></li>"
                            "</ul>",
                        "text/html");
      });
      s.Get("/book/2", [this](const httplib::Request&, httplib::Response& res) {
        std::string html = "<!doctype html><title>Dune</title>";
        switch (book.load()) {
          case BookPage::AsRecorded:
            html += "<h1>Dune</h1><p>Frank Herbert, 1965.</p><p><a href='/reserve?book=2'>Reserve this book</a></p>";
            break;
          case BookPage::LinkRenamedAndMoved:
            html += "<p><a href='/reserve?book=2'>Reserve a copy</a></p><h1>Dune</h1><p>Frank Herbert, 1965.</p>";
            break;
          case BookPage::LinkGone: html += "<h1>Dune</h1><p>Frank Herbert, 1965.</p><p>Not available.</p>"; break;
        }
        res.set_content(html, "text/html");
      });
      s.Get("/reserve", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<!doctype html><title>Reserve</title><form method='post' action='/reserve'>"
            "<input name='reader' placeholder='Your name'></form>",
            "text/html");
      });
      s.Post("/reserve", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content("<!doctype html><title>Reserved</title><p>Reserved for " + req.get_param_value("reader") +
                            ". Confirmation 4242.</p>",
                        "text/html");
      });
    });
  }
  [[nodiscard]] int reservations() const { return server->count("POST", "/reserve"); }
  [[nodiscard]] int reservations_for(const std::string& reader) const {
    int count = 0;
    for (const auto& request : server->requests()) count += request.body == "reader=" + reader ? 1 : 0;
    return count;
  }
};

// The model's part in the recorded run: five steps, the reader's name typed as a secret.
void script_the_task(FakeModelServer& model) {
  auto step = std::make_shared<int>(0);
  model.set_responder([step](const test::ReceivedRequest& request) {
    const auto label = [&](const std::string& name) { return test::label_in_prompt(request.text, name); };
    switch (++*step) {
      case 1: return ScriptedReply::text(R"({"click": ")" + label("Search the catalogue") + R"(", "type": "dune"})");
      case 2: return ScriptedReply::text(R"({"click": ")" + label("Dune") + R"("})");
      case 3: return ScriptedReply::text(R"({"click": ")" + label("Reserve this book") + R"("})");
      case 4: return ScriptedReply::text(R"({"click": ")" + label("Your name") + R"(", "type": "<secret:READER>"})");
      default: return ScriptedReply::text(R"({"done": "Confirmation 4242"})");
    }
  });
}

class ReplayE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vimgpt-replay-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  [[nodiscard]] std::vector<std::string> model_flags() const {
    return {"--base-url", model_.url(), "--api-key", "test-key", "--max-retries", "0", "--observe", "hybrid"};
  }
  [[nodiscard]] std::vector<std::string> task_args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> all = {"reserve Dune for the reader", "--start-url", library_.server->url("/"), "--secret",
                                    "READER=Ada"};
    for (const auto& flag : model_flags()) all.push_back(flag);
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  // The task done once with the model, recorded into root/recorded.
  fs::path record_the_task() {
    script_the_task(model_);
    const fs::path dir = root_ / "recorded";
    const CliRun run = run_vimgpt(task_args({"--record", dir.string()}));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "Confirmation 4242\n");
    EXPECT_EQ(model_.requests().size(), 5U);
    EXPECT_EQ(library_.reservations(), 1);
    return dir;
  }
  CliRun replay(const fs::path& dir, const fs::path& into, std::vector<std::string> extra = {}) {
    std::vector<std::string> all = {"replay", dir.string(), "--record", into.string(), "--secret", "READER=Ada"};
    all.insert(all.end(), extra.begin(), extra.end());
    return run_vimgpt(all);
  }
  static std::vector<std::string> marks(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& step : read_steps(dir))
      out.push_back(step.value("replay", nlohmann::json::object()).value("mark", ""));
    return out;
  }

  Library library_;
  FakeModelServer model_{
      test::Expectations{"test-key", std::string(vision::kDefaultModel), 0, 0, test::Requirement::Any}};
  fs::path root_;
};

TEST_F(ReplayE2E, ARecordedRunIsDoneAgainWithNoModel) {
  const fs::path recorded = record_the_task();
  // What replay finds elements by is in the record; the secret's value is not.
  for (const auto& step : read_steps(recorded)) {
    if (step["action"].contains("click")) {
      EXPECT_TRUE(step["signature"].is_object()) << step.dump();
    }
    EXPECT_EQ(step.dump().find("Ada"), std::string::npos) << step.dump();
  }
  const CliRun run = replay(recorded, root_ / "replayed");  // no model flags, none in the environment
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Confirmation 4242\n");
  EXPECT_EQ(model_.requests().size(), 5U);         // not one more
  EXPECT_EQ(library_.reservations_for("Ada"), 2);  // the secret typed again, from --secret
  EXPECT_EQ(marks(root_ / "replayed"), std::vector<std::string>(5, "replayed"));
  EXPECT_NE(run.err.find("5 steps replayed, 0 healed (0 model calls)"), std::string::npos) << run.err;
  // The replay is a record like any other, and can itself be replayed.
  const CliRun again = replay(root_ / "replayed", root_ / "again");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(library_.reservations(), 3);
}

TEST_F(ReplayE2E, AChangedPageIsHealedWithOneModelCall) {
  const fs::path recorded = record_the_task();
  library_.book = BookPage::LinkRenamedAndMoved;
  std::string healing_prompt;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    healing_prompt = request.text;
    return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Reserve a copy") + R"("})");
  });
  const CliRun run = replay(recorded, root_ / "healed", model_flags());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Confirmation 4242\n");
  EXPECT_EQ(model_.requests().size(), 6U);  // one call, for the one step that changed
  EXPECT_NE(healing_prompt.find("click the link \"Reserve this book\""), std::string::npos) << healing_prompt;
  EXPECT_NE(healing_prompt.find("reserve Dune for the reader"), std::string::npos);
  EXPECT_EQ(marks(root_ / "healed"),
            (std::vector<std::string>{"replayed", "replayed", "healed", "replayed", "replayed"}));
  EXPECT_EQ(library_.reservations(), 2);
  // The healed record replays next time with no model at all.
  const CliRun next = replay(root_ / "healed", root_ / "next");
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(model_.requests().size(), 6U);
  EXPECT_EQ(marks(root_ / "next"), std::vector<std::string>(5, "replayed"));
}

TEST_F(ReplayE2E, AStepThatCannotBeFoundStopsWithoutAModel) {
  const fs::path recorded = record_the_task();
  library_.book = BookPage::LinkGone;
  const CliRun run = replay(recorded, root_ / "diverged");
  EXPECT_EQ(run.exit_code, 5) << run.err;
  EXPECT_NE(run.err.find("diverged at step 3"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("the link \"Reserve this book\" is not on the page"), std::string::npos) << run.err;
  EXPECT_EQ(model_.requests().size(), 5U);
  EXPECT_EQ(library_.reservations(), 1);
  // The step that diverged is recorded, today's frame beside the recorded one around the link.
  const auto steps = read_steps(root_ / "diverged");
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_FALSE(steps[2]["ok"].get<bool>());
  EXPECT_EQ(steps[2]["replay"]["mark"], "diverged");
  const fs::path view = root_ / "diverged" / steps[2]["replay"]["recorded_frame"].get<std::string>();
  ASSERT_TRUE(fs::exists(view));
  // A PNG cut from the recorded frame: narrower than the frame, and not empty.
  std::ifstream png(view, std::ios::binary);
  unsigned char header[24] = {};
  png.read(reinterpret_cast<char*>(header), sizeof header);
  ASSERT_EQ(std::string(reinterpret_cast<char*>(header + 1), 3), "PNG");
  const int width = (header[16] << 24) | (header[17] << 16) | (header[18] << 8) | header[19];
  EXPECT_GT(width, 100);
  EXPECT_LT(width, steps[2]["frame_size"][0].get<int>());
  std::ifstream report(root_ / "diverged" / "report.html");
  const std::string html((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("as recorded"), std::string::npos);
  EXPECT_NE(html.find("Reserve this book"), std::string::npos);
}

TEST_F(ReplayE2E, RecordsThatCannotBeReplayedAreRefusedWithTheReason) {
  const fs::path recorded = record_the_task();
  // A record from before signatures: the same steps without them.
  const fs::path old = root_ / "old";
  fs::copy(recorded, old, fs::copy_options::recursive);
  {
    std::ofstream out(old / "steps.jsonl", std::ios::trunc);
    for (auto step : read_steps(recorded)) {
      step.erase("signature");
      out << step.dump() << "\n";
    }
  }
  CliRun run = replay(old, root_ / "x");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("has no element signature"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--record"), std::string::npos) << run.err;
  // A run that did not finish.
  auto meta = nlohmann::json::parse(std::ifstream(recorded / "run.json"));
  meta["outcome"] = "stuck";
  std::ofstream(recorded / "run.json") << meta.dump();
  run = replay(recorded, root_ / "y");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("ended \"stuck\""), std::string::npos) << run.err;
  EXPECT_EQ(library_.reservations(), 1);  // neither started a browser's worth of work
}

TEST_F(ReplayE2E, TheCacheReplaysATaskDoneBefore) {
  script_the_task(model_);
  const std::string cache = (root_ / "cache").string();
  const auto end_event = [](const CliRun& run) {
    // The last line of --json output is the end event.
    const auto last = run.out.rfind('\n', run.out.size() >= 2 ? run.out.size() - 2 : 0);
    return nlohmann::json::parse(run.out.substr(last == std::string::npos ? 0 : last + 1), nullptr, false);
  };
  CliRun run = run_vimgpt(task_args({"--cache", cache, "--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(end_event(run)["cache"], "fresh");
  EXPECT_EQ(model_.requests().size(), 5U);
  // The entry is an ordinary record folder.
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(cache)) entries.push_back(entry.path());
  ASSERT_EQ(entries.size(), 1U);
  EXPECT_TRUE(fs::exists(entries[0] / "report.html"));
  EXPECT_EQ(end_event(run)["record_dir"], entries[0].string());

  run = run_vimgpt(task_args({"--cache", cache, "--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(end_event(run)["cache"], "replayed");
  EXPECT_EQ(end_event(run)["answer"], "Confirmation 4242");
  EXPECT_EQ(model_.requests().size(), 5U);
  EXPECT_EQ(library_.reservations(), 2);

  // --no-cache pays the model again; the same task with another start page is another entry.
  script_the_task(model_);
  run = run_vimgpt(task_args({"--cache", cache, "--json", "--no-cache"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(end_event(run)["cache"], "fresh");
  EXPECT_EQ(model_.requests().size(), 10U);

  // A page changed since: the cached run is healed, and the healed run replaces the entry.
  library_.book = BookPage::LinkRenamedAndMoved;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    return ScriptedReply::text(R"({"click": ")" + test::label_in_prompt(request.text, "Reserve a copy") + R"("})");
  });
  run = run_vimgpt(task_args({"--cache", cache, "--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(end_event(run)["cache"], "healed");
  EXPECT_EQ(model_.requests().size(), 11U);
  run = run_vimgpt(task_args({"--cache", cache, "--json"}));
  EXPECT_EQ(end_event(run)["cache"], "replayed");
  EXPECT_EQ(model_.requests().size(), 11U);

  // A replay that cannot be healed (the model fails) is followed by a fresh run, whose answer is kept.
  library_.book = BookPage::LinkGone;
  model_.set_responder([&](const test::ReceivedRequest& request) {
    if (request.text.find("being replayed from a recording") != std::string::npos)
      return ScriptedReply::status_code(400, "no healing today");
    return ScriptedReply::text(R"({"done": "Dune cannot be reserved"})");
  });
  run = run_vimgpt(task_args({"--cache", cache, "--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(end_event(run)["cache"], "fresh");
  EXPECT_EQ(end_event(run)["answer"], "Dune cannot be reserved");
  EXPECT_NE(run.err.find("could not be replayed"), std::string::npos) << run.err;
  std::size_t kept = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(cache)) ++kept;
  EXPECT_EQ(kept, 1U);  // the fresh run replaced the entry; the failed replay left nothing behind
}

TEST_F(ReplayE2E, BatchResultsSayHowEachTaskWasDone) {
  test::Site site;
  test::script_model(model_, site.base(), std::chrono::milliseconds(0));
  test::BatchDir dir;
  const std::string tasks = dir.tasks(site.base(), 2);
  const std::string cache = (root_ / "cache").string();
  const auto batch = [&](const std::string& out) {
    auto args = test::batch_args(tasks, out, model_, 1, {});
    args.insert(args.end(), {"--cache", cache, "--api-key", "test-key"});
    return run_vimgpt(args);
  };
  CliRun run = batch((root_ / "first.jsonl").string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& line : test::read_results((root_ / "first.jsonl").string()))
    EXPECT_EQ(line["cache"], "fresh") << line;
  const auto paid = model_.requests().size();
  EXPECT_EQ(paid, 4U);
  run = batch((root_ / "second.jsonl").string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto second = test::read_results((root_ / "second.jsonl").string());
  ASSERT_EQ(second.size(), 2U);
  for (const auto& line : second) {
    EXPECT_EQ(line["cache"], "replayed") << line;
    EXPECT_EQ(line["match"], "exact") << line;
  }
  EXPECT_EQ(model_.requests().size(), paid);
}

// The exported script, run by Playwright Test itself (npm @playwright/test, pinned in tests/interop) against the
// same site, does the task again and ends on the recorded page.
TEST_F(ReplayE2E, ThePlaywrightExportRunsInPlaywright) {
  const fs::path recorded = record_the_task();
  const fs::path project = root_ / "playwright";
  fs::create_directories(project);
  const CliRun exported =
      run_vimgpt({"export", recorded.string(), "--to", "playwright", "-o", (project / "task.spec.ts").string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto played = test::run_playwright(project / "task.spec.ts", "READER=Ada");
  EXPECT_EQ(played.status, 0) << played.output;
  EXPECT_NE(played.output.find("1 passed"), std::string::npos) << played.output;
  // Playwright reserved the book again, for the reader the secret names.
  EXPECT_EQ(library_.reservations_for("Ada"), 2);
  std::ifstream script(project / "task.spec.ts");
  const std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("getByRole(\"link\", { name: \"Reserve this book\", exact: true })"), std::string::npos) << text;
  EXPECT_NE(text.find("secret(\"READER\")"), std::string::npos) << text;
  EXPECT_EQ(text.find("Ada"), std::string::npos) << text;  // the secret's value is never written down
}

}  // namespace
}  // namespace vimgpt
