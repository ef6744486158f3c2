#include "support/mcp_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "common/base64.h"
#include "support/cli_runner.h"

namespace vimgpt::test {

namespace fs = std::filesystem;

McpProcess::McpProcess(const std::vector<std::string>& args) {
  int in[2], out[2], err[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error("pipe failed");
  // Short: Chromium's singleton socket lives a few folders below it, and a socket path has 108 bytes at most.
  std::string tmp = (fs::temp_directory_path() / "vgmcp-XXXXXX").string();
  if (::mkdtemp(tmp.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  tmp_ = tmp;
  std::vector<std::string> full = {VIMGPT_BINARY, "mcp"};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : full) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // No model but the test's own: a key from the environment must never send a test's traffic elsewhere.
  std::vector<std::string> environment =
      vimgpt_environment(tmp, {"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=",
                               "GEMINI_API_KEY=", "VIMGPT_MODEL="});
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  ::signal(SIGPIPE, SIG_IGN);
}

McpProcess::~McpProcess() {
  if (pid_ > 0) {
    finish();
  }
  for (int fd : {in_, out_, err_})
    if (fd >= 0) ::close(fd);
  std::error_code ignored;
  fs::remove_all(tmp_, ignored);
}

void McpProcess::send_line(const std::string& line) {
  const std::string data = line + "\n";
  std::size_t written = 0;
  while (written < data.size()) {
    const auto n = ::write(in_, data.data() + written, data.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

std::optional<std::string> McpProcess::read_line(int fd, std::string& buffer, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const auto end = buffer.find('\n'); end != std::string::npos) {
      std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 1);
      return line;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
    char chunk[65536];
    const auto n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

std::optional<nlohmann::json> McpProcess::receive(std::chrono::milliseconds timeout) {
  auto line = read_line(out_, out_buffer_, timeout);
  if (!line) return std::nullopt;
  return nlohmann::json::parse(*line, nullptr, false);
}

nlohmann::json McpProcess::request(const std::string& method, const nlohmann::json& params) {
  const int id = next_id_++;
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  for (;;) {
    auto message = receive();
    if (!message) return {{"error", "no reply to " + method}};
    if (message->contains("id") && (*message)["id"] == id) return *message;
    notifications.push_back(*message);
  }
}

nlohmann::json McpProcess::call(const std::string& tool, const nlohmann::json& arguments) {
  auto reply = request("tools/call", {{"name", tool}, {"arguments", arguments}});
  return reply.contains("result") ? reply["result"] : reply;
}

std::string McpProcess::wait_for_stderr(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};
    auto line = read_line(err_, err_buffer_, left);
    if (!line) return {};
    if (line->find(text) != std::string::npos) return *line;
  }
}

int McpProcess::stop(int signal) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, signal);
  // Exited with its input still open, or killed: closing the input comes after.
  if (!wait_for_exit(pid_, 30000)) ::kill(pid_, SIGKILL);
  return finish();
}

std::vector<std::string> McpProcess::left_in_tmp() const {
  std::vector<std::string> left;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(tmp_, error)) left.push_back(entry.path().filename().string());
  return left;
}

int McpProcess::finish() {
  if (pid_ <= 0) return -1;
  if (in_ >= 0) {
    ::close(in_);
    in_ = -1;
  }
  int status = 0;
  if (!wait_for_exit(pid_, 30000)) ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string result_text(const nlohmann::json& result) {
  std::string text;
  if (!result.contains("content")) return result.dump();
  for (const auto& block : result["content"])
    if (block.value("type", "") == "text") text += block.value("text", "");
  return text;
}

std::string result_image(const nlohmann::json& result) {
  if (!result.contains("content")) return {};
  for (const auto& block : result["content"]) {
    if (block.value("type", "") != "image") continue;
    auto bytes = base64_decode(block.value("data", ""));
    return bytes ? *bytes : std::string();
  }
  return {};
}

}  // namespace vimgpt::test
