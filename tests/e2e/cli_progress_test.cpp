// Progress of long work through the real binary: on a terminal (a pseudo-terminal) one status line redrawn in place
// with the counts, erased at the end; on a log, plain lines with no carriage return; --json's standard output the
// same either way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/batch_world.h"
#include "support/browser_options.h"
#include "support/cli_runner.h"
#include "support/terminal_runner.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::StandardError;

constexpr const char* kErase = "\r\033[K";

// The environment of the test's own process, its engine and a TMPDIR of the run's; the folder it runs in.
struct Place {
  fs::path root = fs::temp_directory_path() / ("vimgpt-progress-" + std::to_string(::getpid()));
  Place() {
    fs::remove_all(root);
    fs::create_directories(root / "tmp");
  }
  ~Place() { fs::remove_all(root); }
  Place(const Place&) = delete;
  Place& operator=(const Place&) = delete;
  [[nodiscard]] std::vector<std::string> environment() const {
    // No user or project config file of the machine's: HOME and XDG_CONFIG_HOME point here.
    auto variables = test::vimgpt_environment((root / "tmp").string(), {"HOME=", "XDG_CONFIG_HOME="});
    variables.push_back("HOME=" + root.string());
    variables.push_back("XDG_CONFIG_HOME=" + (root / "config").string());
    return variables;
  }
};

std::vector<std::string> batch_command(const test::BatchDir& dir, const test::Site& site,
                                       const test::FakeModelServer& model) {
  return test::batch_args(dir.tasks(site.base(), 3), dir.out(), model, 1, {});
}

TEST(ProgressE2E, ABatchOnATerminalRedrawsOneLineWithTheCounts) {
  Place place;
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  const auto run =
      test::run_vimgpt_in(batch_command(dir, site, model), place.root, place.environment(), StandardError::Terminal);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The line as each task starts and ends, in place; one worker, so in this order.
  EXPECT_NE(run.err.find(std::string(kErase) + "[0/3] 0 done  0 failed  3 left  1 running"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(std::string(kErase) + "[1/3] 1 done  0 failed  2 left  0 running  "), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(std::string(kErase) + "[3/3] 3 done  0 failed  0 left  0 running  "), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("/min"), std::string::npos) << run.err;    // the rate, once a task has finished
  EXPECT_NE(run.err.find(" to go"), std::string::npos) << run.err;  // the time left, while tasks are
  // Each task's own line above the status line, without the log's counts.
  EXPECT_NE(run.err.find(std::string(kErase) + "task t2: done (2 steps, "), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("[2 done, 0 failed"), std::string::npos) << run.err;
  // Erased at the end, the summary on a clean line.
  EXPECT_NE(run.err.find(std::string(kErase) + "batch: 3 done, 0 failed"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.substr(run.err.rfind(kErase) + 4).find('\r'), std::string::npos) << run.err;
  EXPECT_EQ(test::read_results(dir.out()).size(), 3U);
}

TEST(ProgressE2E, ABatchOnALogWritesAPlainLinePerTaskWithTheCounts) {
  Place place;
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  const auto run =
      test::run_vimgpt_in(batch_command(dir, site, model), place.root, place.environment(), StandardError::File);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find('\r'), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\033'), std::string::npos) << run.err;
  for (const std::string counts :
       {"[1 done, 0 failed, 2 left]", "[2 done, 0 failed, 1 left]", "[3 done, 0 failed, 0 left]"}) {
    EXPECT_NE(run.err.find(counts + "\n"), std::string::npos) << counts << " in " << run.err;
  }
  EXPECT_NE(run.err.find("\nbatch: 3 done, 0 failed"), std::string::npos) << run.err;
}

// `vimgpt --json --actions SCRIPT`: two steps with no model, on a terminal and on a log.
struct ScriptedRun {
  Place place;
  test::Site site;
  std::vector<std::string> args() const {
    const fs::path script = place.root / "actions.json";
    std::ofstream(script)
        << nlohmann::json::array({{{"navigate", site.base() + "/visit?id=r&step=2"}}, {{"done", "visited"}}}).dump();
    return {"--json",      "--actions", script.string(), "--start-url", site.base() + "/visit?id=r&step=1",
            "--max-steps", "5",         "visit the page"};
  }
};

// --json's events without what differs from run to run (times, and nothing else).
std::vector<nlohmann::json> events(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    auto event = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(event.is_discarded()) << "not JSON: " << line;
    if (event.is_discarded()) continue;
    event.erase("ms");
    event.erase("record_dir");
    lines.push_back(event);
  }
  return lines;
}

TEST(ProgressE2E, ARunOnATerminalShowsItsStepAndBudgetsAndLeavesJsonAlone) {
  ScriptedRun scripted;
  const auto on_terminal =
      test::run_vimgpt_in(scripted.args(), scripted.place.root, scripted.place.environment(), StandardError::Terminal);
  ASSERT_EQ(on_terminal.exit_code, 0) << on_terminal.err;
  EXPECT_NE(on_terminal.err.find(std::string(kErase) + "step 1/5  "), std::string::npos) << on_terminal.err;
  EXPECT_NE(on_terminal.err.find(std::string(kErase) + "step 2/5  "), std::string::npos) << on_terminal.err;
  EXPECT_NE(on_terminal.err.find(" 0 tok"), std::string::npos) << on_terminal.err;  // no model: nothing spent
  // The step's log line above the status line.
  EXPECT_NE(on_terminal.err.find(std::string(kErase) + "step 1/5  {\"navigate\""), std::string::npos)
      << on_terminal.err;
  // Standard output is the program's: no terminal control in it.
  EXPECT_EQ(on_terminal.out.find('\r'), std::string::npos);
  EXPECT_EQ(on_terminal.out.find('\033'), std::string::npos);

  const auto on_log =
      test::run_vimgpt_in(scripted.args(), scripted.place.root, scripted.place.environment(), StandardError::File);
  ASSERT_EQ(on_log.exit_code, 0) << on_log.err;
  EXPECT_EQ(on_log.err.find('\r'), std::string::npos) << on_log.err;
  EXPECT_EQ(on_log.err.find('\033'), std::string::npos) << on_log.err;
  EXPECT_NE(on_log.err.find("step 1/5  {\"navigate\""), std::string::npos) << on_log.err;
  EXPECT_NE(on_log.err.find("\nstep 2/5  {\"done\""), std::string::npos) << on_log.err;

  // The same events, field for field, whether a person watches or not.
  const auto watched = events(on_terminal.out);
  const auto logged = events(on_log.out);
  ASSERT_EQ(watched.size(), 3U) << on_terminal.out;  // two steps and the end
  EXPECT_EQ(watched, logged);
  EXPECT_EQ(watched.back()["event"], "end");
  EXPECT_EQ(watched.back()["answer"], "visited");
}

}  // namespace
}  // namespace vimgpt
