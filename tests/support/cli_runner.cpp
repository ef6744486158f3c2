#include "support/cli_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace vimgpt::test {

namespace fs = std::filesystem;

// Runs the vimgpt binary with `args`; `on_started` may signal it (for the Ctrl-C test).
CliRun run_vimgpt(const std::vector<std::string>& args, const std::function<void(pid_t)>& on_started) {
  const fs::path dir = fs::temp_directory_path() / ("vimgpt-e2e-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out_path = (dir / "out").string();
  const std::string err_path = (dir / "err").string();
  std::vector<std::string> full = {VIMGPT_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : full) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // Its own TMPDIR, so what the run leaves behind (browser scratch folders, processes) can be found.
  const fs::path tmp = dir / "tmp";
  fs::create_directories(tmp);
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::string_view(*entry).rfind("TMPDIR=", 0) != 0) environment.emplace_back(*entry);
  }
  environment.push_back("TMPDIR=" + tmp.string());
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int in = ::open("/dev/null", O_RDONLY);
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
  std::stringstream out, err;
  out << std::ifstream(out_path).rdbuf();
  err << std::ifstream(err_path).rdbuf();
  run.out = out.str();
  run.err = err.str();
  run.left_behind = !fs::is_empty(tmp);
  for (const auto& process : fs::directory_iterator("/proc")) {
    std::ifstream cmdline(process.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (text.find(tmp.string()) != std::string::npos) run.left_behind = true;
  }
  fs::remove_all(dir);
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
