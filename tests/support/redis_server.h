// A real redis-server (Debian's) for one test: on a free loopback port, nothing saved to disk unless asked to be
// durable, stopped (by its pid) when the object goes. ready() is false when redis-server is not installed or did not
// start.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "support/free_port.h"

namespace vimgpt::test {

class RedisServer {
 public:
  // `durable`: every write appended to a file and synced before it is answered (its own folder, gone with the object),
  // so restart() keeps the queue, as a Redis run for a team would.
  explicit RedisServer(bool durable = false) {
    if (!std::filesystem::exists(kBinary)) return;
    port_ = free_loopback_port();
    if (durable) {
      dir_ = std::filesystem::temp_directory_path() / ("vimgpt-redis-" + std::to_string(port_));
      std::filesystem::create_directories(dir_);
    }
    start();
  }
  ~RedisServer() {
    stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  [[nodiscard]] static bool installed() { return std::filesystem::exists(kBinary); }
  [[nodiscard]] bool ready() const { return ready_; }
  [[nodiscard]] int port() const { return port_; }
  // A queue URL on this server.
  [[nodiscard]] std::string url(const std::string& name) const {
    return "redis://127.0.0.1:" + std::to_string(port_) + "/" + name;
  }

  // SIGKILLed, then started again on the same port; true once it accepts connections again.
  bool restart() {
    stop();
    start();
    return ready_;
  }

 private:
  static constexpr const char* kBinary = "/usr/bin/redis-server";

  void start() {
    ready_ = false;
    const std::string port = std::to_string(port_);
    const std::string dir = dir_.empty() ? std::string("/tmp") : dir_.string();
    const char* appendonly = dir_.empty() ? "no" : "yes";
    pid_ = ::fork();
    if (pid_ == 0) {
      const int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, 0);
      ::dup2(null_fd, 1);
      ::execl(kBinary, kBinary, "--port", port.c_str(), "--bind", "127.0.0.1", "--save", "", "--appendonly", appendonly,
              "--appendfsync", "always", "--dir", dir.c_str(), nullptr);
      ::_exit(127);
    }
    // Bounded: up once its port accepts a connection.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline && !ready_) {
      ready_ = accepts();
      if (!ready_) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
          pid_ = -1;
          return;
        }
        ::poll(nullptr, 0, 20);  // a port has no event to wait on; the deadline bounds it
      }
    }
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
    ready_ = false;
  }

  [[nodiscard]] bool accepts() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return connected;
  }

  int port_ = 0;
  std::filesystem::path dir_;  // the append-only file's, when durable
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace vimgpt::test
