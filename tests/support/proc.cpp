#include "support/proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace vimgpt::test {

std::optional<ProcEntry> ProcEntry::open(pid_t pid, const char* name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  return ProcEntry(fd);
}

ProcEntry::~ProcEntry() {
  if (fd_ >= 0) ::close(fd_);
}

ProcEntry::ProcEntry(ProcEntry&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

std::optional<std::string> ProcEntry::read_all() const {
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t got = ::read(fd_, buffer, sizeof buffer);
    if (got == 0) return text;
    if (got < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;  // ESRCH: the process exited after the open; anything else: unreadable, not ours
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

std::optional<std::string> read_proc(pid_t pid, const char* name) {
  const auto entry = ProcEntry::open(pid, name);
  if (!entry) return std::nullopt;
  return entry->read_all();
}

std::string command_line_of(pid_t pid) {
  std::string text = read_proc(pid, "cmdline").value_or("");
  for (auto& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

pid_t parent_of(pid_t pid) {
  const auto stat = read_proc(pid, "stat");
  if (!stat) return 0;
  // "pid (comm) state ppid ...": comm may hold spaces, so read after its closing parenthesis.
  const auto close = stat->rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat->substr(close + 1));
  char state = 0;
  pid_t parent = 0;
  rest >> state >> parent;
  return parent;
}

std::vector<pid_t> all_processes() {
  std::vector<pid_t> pids;
  const std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
  if (!proc) return pids;
  while (const dirent* entry = ::readdir(proc.get())) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

}  // namespace vimgpt::test
