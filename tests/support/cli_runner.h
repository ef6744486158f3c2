// Runs the real vimgpt binary for end-to-end tests and reads what it recorded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "vision/vision.h"

namespace vimgpt::test {

// The width of the frames a run sends the model by default (--img-res's default preset).
inline int default_frame_width() {
  return vision::preset_width(vision::kDefaultImagePreset);
}

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool left_behind = false;  // a browser process or scratch folder outlived the run
};

// The environment a vimgpt a test starts gets: this process's, with its own TMPDIR, on the test's engine
// (VIMGPT_ENGINE), and without the variables named in `dropped` ("NAME=").
std::vector<std::string> vimgpt_environment(const std::string& tmp, const std::vector<std::string_view>& dropped = {});

// Runs vimgpt with `args` and its own TMPDIR; `on_started` may signal it (for the Ctrl-C test). Its
// standard input reads `input` (nothing by default).
CliRun run_vimgpt(const std::vector<std::string>& args, const std::function<void(pid_t)>& on_started = {},
                  const std::string& input = {});

// Where a run of several processes lives (a background session and the verbs that talk to it): a TMPDIR they
// share, kept after each run, and variables added to the environment ("VIMGPT_SESSION_DIR=...").
struct RunPlace {
  std::filesystem::path tmp;
  std::vector<std::string> variables;
};
// Runs vimgpt there; left_behind is not judged (what it leaves is for the caller to look at).
CliRun run_vimgpt(const std::vector<std::string>& args, const RunPlace& place);

// The browser process of the run_vimgpt() in progress, Chromium's or Firefox's (found by the run's own TMPDIR in its
// command line), or 0.
pid_t run_browser_pid();
// The standard error of the run_vimgpt() in progress, so far.
std::string run_stderr();
// Waits, bounded, until that standard error holds `text`; false when it did not within `timeout`.
bool wait_for_stderr(std::string_view text, std::chrono::milliseconds timeout);
// Its helper processes of one kind: Chromium's descendants with that --type ("renderer", "gpu-process"), Firefox's
// content processes of that kind ("tab", "rdd").
std::vector<pid_t> run_browser_helpers(std::string_view type);
// Waits, bounded, until a process has exited (gone, or a zombie its parent has yet to reap).
bool wait_for_exit(pid_t pid, int timeout_ms = 10000);
// SIGKILLs a process and waits until it has exited.
bool kill_and_wait(pid_t pid);

// Runs a Playwright Test spec (an exported run) with the pinned @playwright/test of tests/interop and Debian's
// Chromium, in the spec's folder; `environment` is put before the command ("READER=Ada"). Playwright's output
// and exit status; a status of -1 when its npm packages are missing (scripts/test.sh installs them).
struct PlaywrightRun {
  int status = -1;
  std::string output;
};
PlaywrightRun run_playwright(const std::filesystem::path& spec, const std::string& environment = {});

// steps.jsonl of a record folder, one object per finished step.
std::vector<nlohmann::json> read_steps(const std::filesystem::path& dir);

}  // namespace vimgpt::test
