// Xvfb as a child of ours: its own process group, killed with us (PR_SET_PDEATHSIG), its display number read from the
// pipe -displayfd writes it to once it accepts connections, so nothing polls for its socket.
#include "launch/xvfb.h"

#include "launch/child.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace vimgpt::launch {
namespace {

constexpr const char* kXvfb = "/usr/bin/Xvfb";
constexpr int kReadyTimeoutMs = 10000;

}  // namespace

Result<std::unique_ptr<VirtualDisplay>> VirtualDisplay::start(int width, int height) {
  if (::access(kXvfb, X_OK) != 0) {
    return fail(ErrorKind::NotFound,
                "--xvfb needs Xvfb (Debian's xvfb package): apt-get install xvfb (or scripts/setup.sh)");
  }
  std::array<int, 2> ready{};
  if (::pipe2(ready.data(), O_CLOEXEC) != 0) {
    return fail(ErrorKind::Io, std::string("cannot create a pipe for Xvfb: ") + std::strerror(errno));
  }
  // Room for the browser's window and its own bars around the viewport.
  const std::string screen =
      std::to_string(std::max(width + 200, 1280)) + "x" + std::to_string(std::max(height + 200, 1024)) + "x24";
  auto pid = spawn_child(
      {{kXvfb, "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-noreset"}, {}, {{ready[1], 3}}, -1});
  if (!pid) {
    ::close(ready[0]);
    ::close(ready[1]);
    return pid.failure();
  }
  ::close(ready[1]);
  std::unique_ptr<VirtualDisplay> display(new VirtualDisplay(*pid, ""));
  auto number = read_line(
      ready[0], [](std::string_view line) { return !line.empty(); }, std::chrono::milliseconds(kReadyTimeoutMs));
  ::close(ready[0]);
  if (!number || number->find_first_not_of("0123456789") != std::string::npos) {
    return fail(ErrorKind::Io,
                "Xvfb did not start (it named no display within " + std::to_string(kReadyTimeoutMs / 1000) + " s)");
  }
  display->name_ = ":" + *number;
  return display;
}

VirtualDisplay::~VirtualDisplay() {
  end_child(pid_);
}

}  // namespace vimgpt::launch
