// Private to src/cli: progress of long work on standard error. On a terminal, one status line redrawn in place
// (carriage return, erase) under the log lines, and erased at the end; elsewhere (a log file, a pipe) no status line
// at all: each finished task or step is a plain line of its own. Machine output (--json, on stdout) never goes here.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include "vision/vision.h"

namespace vimgpt::cli {

class StatusLine {
 public:
  // `terminal`: whether `out` is one (isatty of standard error); without one, show() draws nothing.
  StatusLine(std::ostream& out, bool terminal);
  ~StatusLine();  // erases the line
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  [[nodiscard]] bool terminal() const { return terminal_; }
  // A log line, above the status line (which is drawn again under it).
  void say(const std::string& line);
  // The status line's new text, drawn at once on a terminal.
  void show(std::string status);
  // Erases the line for good (the end of the work).
  void clear();
  // Erases it until the next show(): before a prompt that waits for the person on the same terminal.
  void hide();

 private:
  std::mutex mutex_;
  std::ostream& out_;
  bool terminal_;
  std::string status_;
  bool drawn_ = false;
};

// The status line of the run or batch under way, if any, hidden: what a prompt to the person calls first so the
// question does not land on the end of the status line.
void hide_status_line();

// "1m05s", "42s", "2h03m": a duration to read at a glance (whole seconds).
std::string glance_duration(std::chrono::seconds duration);

// A batch's counts: done and failed so far, how many are left (nullopt when the queue's other workers make that
// unknown), running now, the time since it began and what the tasks spent.
struct BatchCounts {
  int done = 0;
  int failed = 0;
  std::optional<std::int64_t> left;
  int running = 0;
  std::chrono::steady_clock::duration elapsed{};
  vision::Usage usage;
};
// "2 done  1 failed  5 left  2 running  4.0/min  ~1m15s left  12s  4210 tok  $0.0070": the rate is finished tasks per
// minute so far, the estimate what is left at that rate (absent until a task has finished).
std::string batch_status(const BatchCounts& counts);

// A run's budgets and what it used: "step 4/30  12s of 5m00s  4210 tok of 100000  $0.0070 of $0.5000" (a budget with no
// limit shows what was used alone).
struct RunCounts {
  int step = 0;  // the step under way
  int max_steps = 0;
  std::chrono::steady_clock::duration elapsed{};
  std::chrono::milliseconds timeout{0};  // 0: none
  vision::Usage usage;
  std::int64_t max_tokens_total = 0;  // 0: none
  double max_cost = 0;                // 0: none
};
std::string run_status(const RunCounts& counts);

}  // namespace vimgpt::cli
