// The tests' /proc reader (tests/support/proc.h) against real processes that exit: a vanished process is
// "gone" (nullopt), never an exception. Issue 35: std::ifstream + istreambuf_iterator threw from underflow
// ("No such process") when a process exited between listing /proc and reading its entries.
#include "support/proc.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace vimgpt::test {
namespace {

// A child that waits, blocked on a pipe, until it is told to exit.
class Child {
 public:
  Child() {
    EXPECT_EQ(::pipe(gate_), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      char byte = 0;
      ::close(gate_[1]);
      const auto got = ::read(gate_[0], &byte, 1);
      ::_exit(got == 1 ? 0 : 1);
    }
    ::close(gate_[0]);
  }
  ~Child() {
    if (!reaped_) finish();
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Lets it exit and reaps it: its /proc folder is gone afterwards.
  void finish() {
    const char byte = 'x';
    EXPECT_EQ(::write(gate_[1], &byte, 1), 1);
    ::close(gate_[1]);
    int status = 0;
    EXPECT_EQ(::waitpid(pid_, &status, 0), pid_);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    reaped_ = true;
  }
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  int gate_[2] = {-1, -1};
  pid_t pid_ = -1;
  bool reaped_ = false;
};

TEST(ProcReader, ALiveProcessIsRead) {
  Child child;
  EXPECT_EQ(parent_of(child.pid()), ::getpid());
  const auto stat = read_proc(child.pid(), "stat");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->rfind(std::to_string(child.pid()) + " (", 0), 0U) << *stat;
  // The child is a fork of this test: the same command line as ours.
  EXPECT_EQ(command_line_of(child.pid()), command_line_of(::getpid()));
  EXPECT_FALSE(command_line_of(::getpid()).empty());
  const auto all = all_processes();
  EXPECT_NE(std::find(all.begin(), all.end(), child.pid()), all.end());
}

TEST(ProcReader, AProcessGoneBeforeTheOpenIsGone) {
  Child child;
  const pid_t pid = child.pid();
  child.finish();
  EXPECT_FALSE(ProcEntry::open(pid, "cmdline"));
  EXPECT_FALSE(read_proc(pid, "cmdline"));
  EXPECT_EQ(command_line_of(pid), "");
  EXPECT_EQ(parent_of(pid), 0);
}

// The race of the CI flake, made certain: the entries are opened while the process lives and read after it
// has exited and been reaped, when the kernel answers the read with ESRCH.
TEST(ProcReader, AProcessThatExitsBetweenTheOpenAndTheReadIsGone) {
  Child child;
  auto cmdline = ProcEntry::open(child.pid(), "cmdline");
  auto stat = ProcEntry::open(child.pid(), "stat");
  ASSERT_TRUE(cmdline);
  ASSERT_TRUE(stat);
  child.finish();
  EXPECT_EQ(cmdline->read_all(), std::nullopt);
  EXPECT_EQ(stat->read_all(), std::nullopt);
}

}  // namespace
}  // namespace vimgpt::test
