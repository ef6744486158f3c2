#include "launch/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

namespace vimgpt::launch {
namespace {

std::mutex g_tracked_mutex;
std::set<pid_t> g_tracked;  // fork_tracked's children: waited for by their own code

}  // namespace

pid_t fork_tracked() {
  // Held across the fork: a child that ends at once is tracked before reap_orphans can see it. The child leaves its
  // copy of the lock alone (between fork and exec only async-signal-safe calls are allowed).
  g_tracked_mutex.lock();
  const pid_t pid = ::fork();
  if (pid == 0) return pid;
  if (pid > 0) g_tracked.insert(pid);
  g_tracked_mutex.unlock();
  return pid;
}

void reap_orphans() {
  const pid_t self = ::getpid();
  std::error_code error;
  for (auto entry = std::filesystem::directory_iterator("/proc", error);
       !error && entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry->path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;  // gone meanwhile
    const auto name_end = line.rfind(')');
    if (name_end == std::string::npos || name_end + 2 >= line.size()) continue;
    std::istringstream fields(line.substr(name_end + 2));
    char state = 0;
    pid_t parent = 0;
    if (!(fields >> state >> parent) || state != 'Z' || parent != self) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    {
      std::scoped_lock lock(g_tracked_mutex);
      if (g_tracked.contains(pid)) continue;
    }
    ::waitpid(pid, nullptr, WNOHANG);
  }
}

std::vector<std::string> environment_with(const std::vector<std::string>& set,
                                          const std::vector<std::string>& dropped) {
  const auto named = [](std::string_view variable, std::string_view name) {
    return variable.size() > name.size() && variable.starts_with(name) && variable[name.size()] == '=';
  };
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    const bool replaced =
        std::any_of(set.begin(), set.end(),
                    [&](const std::string& one) { return named(variable, one.substr(0, one.find('='))); }) ||
        std::any_of(dropped.begin(), dropped.end(), [&](const std::string& name) { return named(variable, name); });
    if (!replaced) environment.emplace_back(variable);
  }
  environment.insert(environment.end(), set.begin(), set.end());
  return environment;
}

Result<pid_t> spawn_child(const ChildSpec& spec) {
  // Built before the fork: between fork and exec only async-signal-safe calls are allowed.
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = spec.environment;
  if (environment.empty()) {
    for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  }
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  int highest = 2;
  for (const auto& [from, to] : spec.fds) highest = std::max(highest, to);
  const pid_t parent = ::getpid();
  const pid_t pid = fork_tracked();
  if (pid < 0) return fail(ErrorKind::Io, "cannot start " + spec.argv[0] + ": fork failed: " + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    // Moved out of the way first: a descriptor of ours may already have a number the child is to get.
    std::vector<std::pair<int, int>> moved;
    for (const auto& [from, to] : spec.fds) moved.emplace_back(::fcntl(from, F_DUPFD, highest + 1), to);
    const int stderr_fd = spec.stderr_fd >= 0 ? ::fcntl(spec.stderr_fd, F_DUPFD, highest + 1) : -1;
    for (const auto& [from, to] : moved) ::dup2(from, to);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(stderr_fd >= 0 ? stderr_fd : null_fd, 2);
    ::close_range(static_cast<unsigned>(highest) + 1, ~0U, 0);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

Result<std::string> read_line(int fd, const std::function<bool(std::string_view line)>& wanted,
                              std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string pending;
  for (;;) {
    for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (wanted(line)) return line;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return fail(ErrorKind::Timeout, "no word within " + std::to_string(timeout.count()) + " ms");
    pollfd readable{fd, POLLIN, 0};
    const int n = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(ErrorKind::Io, std::string("poll failed: ") + std::strerror(errno));
    if (n == 0) continue;
    char buffer[4096];
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return fail(ErrorKind::Io, "it closed its output before saying it was ready");
    pending.append(buffer, static_cast<std::size_t>(got));
  }
}

std::optional<std::string> exit_of(pid_t pid, std::chrono::milliseconds wait) {
  // A pidfd is readable once its process has ended: no polling for the status.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pollfd ended{pidfd, POLLIN, 0};
    while (::poll(&ended, 1, static_cast<int>(wait.count())) < 0 && errno == EINTR) {
    }
    ::close(pidfd);
  }
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
    return std::nullopt;
  if (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED)
    return "was killed by signal " + std::to_string(info.si_status);
  return "exited with status " + std::to_string(info.si_status);
}

void end_child(pid_t pid, int grace_ms) {
  ::kill(-pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (::waitpid(pid, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      break;
    }
    ::poll(nullptr, 0, 5);
  }
  collect_group(pid, grace_ms);  // helpers of its group that outlived it
}

void collect_group(pid_t pid, int grace_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    ::kill(-pid, SIGKILL);
    const pid_t reaped = ::waitpid(-pid, nullptr, WNOHANG);
    if (reaped < 0 && errno == ECHILD) break;
    if (reaped == 0) ::poll(nullptr, 0, 2);
  }
  {
    std::scoped_lock lock(g_tracked_mutex);
    g_tracked.erase(pid);
  }
  reap_orphans();
}

}  // namespace vimgpt::launch
