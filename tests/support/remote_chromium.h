// A Chromium the test starts itself with --remote-debugging-port=0, as a fleet would run it: the port it
// picked is read from DevToolsActivePort in its profile. Loopback only; ended by its pid (and its process
// group, which holds its helpers) when the object goes.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launch/launch.h"

namespace vimgpt::test {

// Where Chromium serves its DevTools, as it writes it to DevToolsActivePort in its profile once it listens: the port it
// picked and its browser target's path. A bounded wait (30 s; a file has no event to wait on); nothing when `gone`
// says the browser exited first.
struct DevToolsEndpoint {
  int port = 0;
  std::string path;
};
inline std::optional<DevToolsEndpoint> wait_for_devtools_endpoint(const std::filesystem::path& profile,
                                                                  const std::function<bool()>& gone) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(profile / "DevToolsActivePort");
    DevToolsEndpoint endpoint;
    if (in >> endpoint.port >> endpoint.path && endpoint.port > 0 && !endpoint.path.empty()) return endpoint;
    if (gone()) return std::nullopt;
    ::poll(nullptr, 0, 20);
  }
  return std::nullopt;
}

class RemoteChromium {
 public:
  RemoteChromium() {
    std::string pattern = (std::filesystem::temp_directory_path() / "vimgpt-remote-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return;
    dir_ = pattern;
    const char* env = std::getenv("CHROME_PATH");
    const std::string chrome = env != nullptr && *env != '\0' ? env : "/usr/lib/chromium/chromium";
    // The disabled features are what docs/usage.md asks of a browser started for the agent.
    std::vector<std::string> args = {chrome,
                                     "--remote-debugging-port=0",
                                     "--headless=new",
                                     "--user-data-dir=" + dir_.string(),
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--disable-gpu",
                                     "--disable-features=" + std::string(launch::kDisabledFeatures),
                                     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                                     "about:blank"};
    if (::geteuid() == 0) args.insert(args.begin() + 1, "--no-sandbox");
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);  // its helpers join its group, so one kill ends them all
      const int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, 0);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    read_active_port();
  }
  ~RemoteChromium() {
    kill();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  RemoteChromium(const RemoteChromium&) = delete;
  RemoteChromium& operator=(const RemoteChromium&) = delete;

  [[nodiscard]] bool ready() const { return port_ > 0; }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string http_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The browser-level WebSocket, as DevToolsActivePort names it.
  [[nodiscard]] std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(port_) + ws_path_; }

  // SIGKILL to the browser and its helpers; returns once the browser process is reaped (so its sockets
  // are closed by the kernel).
  void kill() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  // Failing the caller's ready() when Chromium never says where it listens.
  void read_active_port() {
    const auto endpoint = wait_for_devtools_endpoint(dir_, [this] {
      if (::waitpid(pid_, nullptr, WNOHANG) != pid_) return false;
      pid_ = -1;
      return true;
    });
    if (!endpoint) return;
    port_ = endpoint->port;
    ws_path_ = endpoint->path;
  }

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string ws_path_;
};

}  // namespace vimgpt::test
