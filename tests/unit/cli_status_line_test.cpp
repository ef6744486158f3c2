// The status line (src/cli/progress.*): drawn in place only on a terminal, log lines above it, and its texts.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/progress.h"

namespace vimgpt::cli {
namespace {

using namespace std::chrono_literals;

TEST(StatusLine, OnATerminalTheLineIsRedrawnInPlaceUnderTheLogAndErasedAtTheEnd) {
  std::ostringstream out;
  {
    StatusLine status(out, true);
    status.show("1 done");
    status.say("task a: done");
    status.show("2 done");
    status.clear();
  }
  EXPECT_EQ(out.str(), "\r\033[K1 done\r\033[Ktask a: done\n1 done\r\033[K2 done\r\033[K");
}

TEST(StatusLine, OnALogOnlyTheLinesAreWritten) {
  std::ostringstream out;
  {
    StatusLine status(out, false);
    status.show("1 done");
    status.say("task a: done");
    status.show("2 done");
    hide_status_line();
  }
  EXPECT_EQ(out.str(), "task a: done\n");
}

TEST(StatusLine, HidingForAPromptErasesItUntilItIsShownAgain) {
  std::ostringstream out;
  StatusLine status(out, true);
  status.show("step 2/30");
  hide_status_line();
  EXPECT_EQ(out.str(), "\r\033[Kstep 2/30\r\033[K");
  status.say("asked");  // not drawn again under a line while hidden
  EXPECT_EQ(out.str(), "\r\033[Kstep 2/30\r\033[Kasked\nstep 2/30");
}

TEST(ProgressText, ABatchShowsCountsRateAndTimeLeft) {
  BatchCounts counts;
  counts.done = 4;
  counts.failed = 1;
  counts.left = 15;
  counts.running = 2;
  counts.elapsed = 93s;
  EXPECT_EQ(batch_status(counts), "4 done  1 failed  15 left  2 running  3.2/min  ~4m39s to go  1m33s  0 tok  $0.0000");
  counts.done = 0;
  counts.failed = 0;
  counts.left.reset();              // a queue's other workers: nothing is known of what is left
  counts.usage.cost_known = false;  // a model with no known price: no cost shown
  EXPECT_EQ(batch_status(counts), "0 done  0 failed  2 running  1m33s  0 tok");
}

TEST(ProgressText, ARunShowsEachBudgetItHas) {
  RunCounts counts;
  counts.step = 4;
  counts.max_steps = 30;
  counts.elapsed = 12s;
  counts.usage.prompt_tokens = 4000;
  counts.usage.completion_tokens = 210;
  counts.usage.cost_known = false;
  EXPECT_EQ(run_status(counts), "step 4/30  12s  4210 tok");
  counts.timeout = 5min;
  counts.max_tokens_total = 100000;
  counts.max_cost = 0.5;
  counts.usage.cost_known = true;
  counts.usage.cost_usd = 0.007;
  EXPECT_EQ(run_status(counts), "step 4/30  12s of 5m00s  4210 tok of 100000  $0.0070 of $0.5000");
}

TEST(ProgressText, DurationsReadAtAGlance) {
  EXPECT_EQ(glance_duration(42s), "42s");
  EXPECT_EQ(glance_duration(65s), "1m05s");
  EXPECT_EQ(glance_duration(2h + 3min), "2h03m");
}

}  // namespace
}  // namespace vimgpt::cli
