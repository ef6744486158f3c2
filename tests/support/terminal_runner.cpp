#include "support/terminal_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace vimgpt::test {

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

[[noreturn]] void exec_in(const std::vector<std::string>& args, const fs::path& folder,
                          const std::vector<std::string>& environment) {
  std::vector<std::string> full = {VIMGPT_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : full) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> variables = environment;
  std::vector<char*> envp;
  for (auto& entry : variables) envp.push_back(entry.data());
  envp.push_back(nullptr);
  if (::chdir(folder.c_str()) != 0) ::_exit(126);
  ::execve(argv[0], argv.data(), envp.data());
  ::_exit(127);
}

}  // namespace

FolderRun run_vimgpt_in(const std::vector<std::string>& args, const fs::path& folder,
                        const std::vector<std::string>& environment, StandardError err) {
  const fs::path scratch = fs::temp_directory_path() / ("vimgpt-terminal-run-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  const std::string out_path = (scratch / "out").string();
  const std::string err_path = (scratch / "err").string();
  FolderRun run;
  int status = 0;
  if (err == StandardError::File) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int in = ::open("/dev/null", O_RDONLY);
      const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int log = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(log, 2);
      exec_in(args, folder, environment);
    }
    ::waitpid(pid, &status, 0);
    run.err = read_all(err_path);
  } else {
    termios raw{};
    ::cfmakeraw(&raw);
    winsize size{40, 160, 0, 0};
    int terminal = -1;
    const pid_t pid = ::forkpty(&terminal, nullptr, &raw, &size);
    if (pid == 0) {
      // Standard input and error stay on the terminal; standard output goes to a file, as a program reads it.
      const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(out, 1);
      exec_in(args, folder, environment);
    }
    // Read what arrives until vimgpt exits (its pidfd becomes readable), then what is still buffered: a browser
    // process that outlives it a moment may hold the terminal open, so its closing is not the event to wait for.
    const int exited = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    char buffer[4096];
    bool running = true;
    while (running) {
      pollfd ready[2] = {{terminal, POLLIN, 0}, {exited, POLLIN, 0}};
      if (::poll(ready, exited >= 0 ? 2 : 1, 120'000) <= 0) break;  // the test's own timeout is the bound
      if ((ready[1].revents & POLLIN) != 0) {
        running = false;
        ::fcntl(terminal, F_SETFL, ::fcntl(terminal, F_GETFL) | O_NONBLOCK);
      }
      while (true) {
        const ssize_t got = ::read(terminal, buffer, sizeof buffer);
        if (got > 0) {
          run.err.append(buffer, static_cast<std::size_t>(got));
          if (running) break;  // back to waiting on both
        } else if (got < 0 && errno == EINTR) {
          continue;
        } else {
          if (got <= 0 && running && errno != EAGAIN) running = false;  // EIO: every end of the terminal closed
          break;
        }
      }
    }
    if (exited >= 0) ::close(exited);
    ::close(terminal);
    ::waitpid(pid, &status, 0);
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = read_all(out_path);
  fs::remove_all(scratch);
  return run;
}

}  // namespace vimgpt::test
