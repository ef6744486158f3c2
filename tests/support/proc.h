// Reading other processes' /proc entries in tests, where any process on the machine may exit at any moment.
// A process that is gone (its folder missing, or ESRCH from a read because it exited after the open) is "not
// this one": the reader returns nullopt. No exception escapes (std::ifstream + istreambuf_iterator throws from
// underflow on ESRCH), and nothing is retried.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace vimgpt::test {

// One open /proc/PID/NAME, read separately from the open: a process can exit between the two.
class ProcEntry {
 public:
  // nullopt when the process (or the entry) is not there.
  static std::optional<ProcEntry> open(pid_t pid, const char* name);
  ~ProcEntry();
  ProcEntry(ProcEntry&& other) noexcept;
  ProcEntry& operator=(ProcEntry&&) = delete;
  ProcEntry(const ProcEntry&) = delete;
  ProcEntry& operator=(const ProcEntry&) = delete;

  // The whole entry; nullopt when the process went away since the open (or the read failed otherwise).
  [[nodiscard]] std::optional<std::string> read_all() const;

 private:
  explicit ProcEntry(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// /proc/PID/NAME in one go; nullopt when the process is gone.
std::optional<std::string> read_proc(pid_t pid, const char* name);
// Its command line with the NUL separators turned into spaces; empty when the process is gone.
std::string command_line_of(pid_t pid);
// Its parent's pid (from /proc/PID/stat); 0 when the process is gone.
pid_t parent_of(pid_t pid);
// Every pid in /proc at the moment of listing (some will have exited by the time they are read).
std::vector<pid_t> all_processes();

}  // namespace vimgpt::test
