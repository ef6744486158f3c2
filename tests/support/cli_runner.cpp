#include "support/cli_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "support/browser_options.h"
#include "support/proc.h"
#include "support/shared_browser.h"

namespace vimgpt::test {

namespace fs = std::filesystem;

namespace {

fs::path run_dir() {
  return fs::temp_directory_path() / ("vimgpt-e2e-" + std::to_string(::getpid()));
}

}  // namespace

std::vector<std::string> vimgpt_environment(const std::string& tmp, const std::vector<std::string_view>& dropped) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    const auto named = [&](std::string_view name) { return variable.starts_with(name); };
    if (named("TMPDIR=") || named("VIMGPT_ENGINE=") || std::any_of(dropped.begin(), dropped.end(), named)) continue;
    environment.emplace_back(variable);
  }
  environment.push_back("TMPDIR=" + tmp);
  environment.push_back(engine_variable());
  return environment;
}

pid_t run_browser_pid() {
  const std::string tmp = (run_dir() / "tmp").string();
  for (pid_t pid : all_processes()) {
    const std::string text = command_line_of(pid);
    if (text.find(tmp) == std::string::npos) continue;
    // Chromium's browser process (its helpers have a --type), or Firefox's (its content processes, -contentproc).
    const bool chromium =
        text.find("--user-data-dir=") != std::string::npos && text.find("--type=") == std::string::npos;
    const bool firefox = text.find("--profile") != std::string::npos && text.find("-contentproc") == std::string::npos;
    if (chromium || firefox) return pid;
  }
  return 0;
}

std::string run_stderr() {
  std::ifstream in(run_dir() / "err");
  return {std::istreambuf_iterator<char>(in), {}};
}

bool wait_for_stderr(std::string_view text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (run_stderr().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    ::poll(nullptr, 0, 50);  // a file has no event to wait on; the bound above fails the test
  }
  return true;
}

std::vector<pid_t> run_browser_helpers(std::string_view type) {
  const pid_t browser = run_browser_pid();
  std::vector<pid_t> helpers;
  if (browser == 0) return helpers;
  // Chromium names a helper's kind in --type=; Firefox's content processes end their command line with it.
  const std::string wanted = "--type=" + std::string(type) + " ";
  const std::string last = " " + std::string(type) + " ";
  for (pid_t pid : all_processes()) {
    std::string text = command_line_of(pid);  // its arguments, each followed by a space
    if (text.empty()) continue;
    const bool firefox = text.find("-contentproc") != std::string::npos && text.ends_with(last);
    if (text.find(wanted) == std::string::npos && !firefox) continue;
    for (pid_t up = parent_of(pid); up > 1; up = parent_of(up)) {
      if (up == browser) {
        helpers.push_back(pid);
        break;
      }
    }
  }
  return helpers;
}

bool wait_for_exit(pid_t pid, int timeout_ms) {
  // A pidfd becomes readable when its process exits, child of ours or not.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return errno == ESRCH;  // already gone
  pollfd exited{pidfd, POLLIN, 0};
  const bool dead = ::poll(&exited, 1, timeout_ms) == 1;
  ::close(pidfd);
  return dead;
}

bool kill_and_wait(pid_t pid) {
  return pid > 0 && ::kill(pid, SIGKILL) == 0 && wait_for_exit(pid);
}

namespace {

// A killed vimgpt leaves its browser to die on its own: Chromium's helpers may still be writing their cache into the
// run's folder for a moment after the test has seen vimgpt go, and removing a folder while files appear in it fails.
// The folder goes once they stop; a writer still at it after ten seconds fails the test.
void remove_when_let_go(const fs::path& dir) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::error_code error;
  while (fs::remove_all(dir, error), error) {
    if (std::chrono::steady_clock::now() >= deadline)
      throw fs::filesystem_error("cannot remove the run's folder", dir, error);
    ::poll(nullptr, 0, 50);  // nothing tells when the last writer is done; the deadline above bounds it
  }
}

CliRun run_in(const std::vector<std::string>& args, const std::function<void(pid_t)>& on_started,
              const std::string& input, const RunPlace* place) {
  const fs::path dir = run_dir();
  fs::create_directories(dir);
  const std::string out_path = (dir / "out").string();
  const std::string err_path = (dir / "err").string();
  const std::string in_path = (dir / "in").string();
  std::ofstream(in_path, std::ios::binary) << input;
  std::vector<std::string> full = {VIMGPT_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  const bool shared = shares_browser(args);
  if (shared) {
    full.emplace_back("--browser");
    full.push_back(shared_browser_url());
  }
  std::vector<char*> argv;
  for (auto& arg : full) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // Its own TMPDIR, so what the run leaves behind (browser scratch folders, processes) can be found.
  const fs::path tmp = place != nullptr ? place->tmp : dir / "tmp";
  fs::create_directories(tmp);
  std::vector<std::string> environment = vimgpt_environment(tmp.string());
  if (place != nullptr) environment.insert(environment.end(), place->variables.begin(), place->variables.end());
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int in = ::open(in_path.c_str(), O_RDONLY);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  if (on_started) on_started(pid);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (shared && WIFSIGNALED(status)) drop_shared_browser();  // its session was never ended
  std::stringstream out, err;
  out << std::ifstream(out_path).rdbuf();
  err << std::ifstream(err_path).rdbuf();
  run.out = out.str();
  run.err = err.str();
  if (place == nullptr) {
    run.left_behind = !fs::is_empty(tmp);
    for (pid_t process : all_processes()) {
      if (command_line_of(process).find(tmp.string()) != std::string::npos) run.left_behind = true;
    }
  }
  remove_when_let_go(dir);
  return run;
}

}  // namespace

CliRun run_vimgpt(const std::vector<std::string>& args, const std::function<void(pid_t)>& on_started,
                  const std::string& input) {
  return run_in(args, on_started, input, nullptr);
}

CliRun run_vimgpt(const std::vector<std::string>& args, const RunPlace& place) {
  return run_in(args, {}, {}, &place);
}

PlaywrightRun run_playwright(const std::filesystem::path& spec, const std::string& environment) {
  PlaywrightRun run;
  const fs::path project = spec.parent_path();
  const fs::path node_modules = fs::path(VIMGPT_SOURCE_DIR) / "tests" / "interop" / "node_modules";
  if (!fs::exists(node_modules / "@playwright" / "test")) {
    run.output = "npm packages missing: scripts/test.sh installs them (npm ci in tests/interop)";
    return run;
  }
  std::error_code exists;
  fs::create_directory_symlink(node_modules, project / "node_modules", exists);
  std::ofstream(project / "playwright.config.mjs")
      << "export default { testDir: '.', outputDir: './results', reporter: 'line', workers: 1, timeout: 60000,\n"
         "  use: { headless: true, launchOptions: { executablePath: '/usr/lib/chromium/chromium' } } };\n";
  const std::string command = "cd '" + project.string() + "' && " + environment +
                              " node node_modules/@playwright/test/cli.js test --config playwright.config.mjs 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) run.output += buffer;
  run.status = ::pclose(pipe);
  return run;
}

std::vector<nlohmann::json> read_steps(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> steps;
  std::ifstream in(dir / "steps.jsonl");
  std::string line;
  while (std::getline(in, line)) steps.push_back(nlohmann::json::parse(line));
  return steps;
}

}  // namespace vimgpt::test
