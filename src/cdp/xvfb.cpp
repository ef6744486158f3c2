// Xvfb as a child of ours: its own process group, killed with us (PR_SET_PDEATHSIG), its display number read from the
// pipe -displayfd writes it to once it accepts connections, so nothing polls for its socket.
#include "cdp/xvfb.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace vimgpt::cdp {
namespace {

constexpr const char* kXvfb = "/usr/bin/Xvfb";
constexpr int kReadyTimeoutMs = 10000;
constexpr auto kGracefulExit = std::chrono::milliseconds(2000);

}  // namespace

Result<std::unique_ptr<VirtualDisplay>> VirtualDisplay::start(int width, int height) {
  if (::access(kXvfb, X_OK) != 0) {
    return fail(ErrorKind::NotFound,
                "--xvfb needs Xvfb (Debian's xvfb package): run scripts/setup.sh, or apt-get install xvfb");
  }
  std::array<int, 2> ready{};
  if (::pipe2(ready.data(), O_CLOEXEC) != 0) {
    return fail(ErrorKind::Io, std::string("cannot create a pipe for Xvfb: ") + std::strerror(errno));
  }
  // Room for the browser's window and its own bars around the viewport.
  const std::string screen =
      std::to_string(std::max(width + 200, 1280)) + "x" + std::to_string(std::max(height + 200, 1024)) + "x24";
  std::vector<std::string> args = {kXvfb, "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-noreset"};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    return fail(ErrorKind::Io, std::string("cannot start Xvfb: fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int write_end = ::fcntl(ready[1], F_DUPFD, 10);
    ::dup2(write_end, 3);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    ::close_range(4, ~0U, 0);
    ::execv(kXvfb, argv.data());
    ::_exit(127);
  }
  ::close(ready[1]);
  std::unique_ptr<VirtualDisplay> display(new VirtualDisplay(pid, ""));
  std::string number;
  pollfd wait{ready[0], POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kReadyTimeoutMs);
  while (number.empty() || number.back() != '\n') {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    const int n = ::poll(&wait, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    char buffer[16];
    const ssize_t got = ::read(ready[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    number.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(ready[0]);
  while (!number.empty() && (number.back() == '\n' || number.back() == '\r')) number.pop_back();
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) {
    return fail(ErrorKind::Io,
                "Xvfb did not start (it named no display within " + std::to_string(kReadyTimeoutMs / 1000) + " s)");
  }
  display->name_ = ":" + number;
  return display;
}

VirtualDisplay::~VirtualDisplay() {
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kGracefulExit;
  while (::waitpid(pid_, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      break;
    }
    ::poll(nullptr, 0, 5);
  }
}

}  // namespace vimgpt::cdp
