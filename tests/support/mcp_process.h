// `vimgpt mcp` as a child process for end-to-end tests: JSON-RPC messages written to its standard input and
// read, one a line, from its standard output, each read bounded by a deadline.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace vimgpt::test {

class McpProcess {
 public:
  // Starts VIMGPT_BINARY with "mcp" and `args` (its own TMPDIR, as run_vimgpt).
  explicit McpProcess(const std::vector<std::string>& args);
  ~McpProcess();
  McpProcess(const McpProcess&) = delete;
  McpProcess& operator=(const McpProcess&) = delete;

  void send_line(const std::string& line);
  void send(const nlohmann::json& message) { send_line(message.dump()); }
  // The next line of standard output as JSON; nullopt when none came in time (or it ended).
  std::optional<nlohmann::json> receive(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Sends a request with the next id and returns its reply; notifications met on the way are kept.
  nlohmann::json request(const std::string& method, const nlohmann::json& params = nlohmann::json::object());
  // tools/call's result (the reply's "result"), or the whole reply when it is an error.
  nlohmann::json call(const std::string& tool, const nlohmann::json& arguments = nlohmann::json::object());
  // A line of standard error that contains `text`, waited for; empty when none came in time.
  std::string wait_for_stderr(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Closes standard input and waits (bounded) for the exit code.
  int finish();
  // Sends `signal` with standard input still open (a client that stops its server that way) and waits
  // (bounded) for the exit code.
  int stop(int signal);
  // What the server left in its TMPDIR (a browser profile, a scratch folder): nothing, once it has exited.
  [[nodiscard]] std::vector<std::string> left_in_tmp() const;

  std::vector<nlohmann::json> notifications;
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  std::optional<std::string> read_line(int fd, std::string& buffer, std::chrono::milliseconds timeout);
  std::string tmp_;  // its TMPDIR
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string out_buffer_;
  std::string err_buffer_;
  int next_id_ = 1;
};

// The text of a tool result's text blocks, joined.
std::string result_text(const nlohmann::json& result);
// The first image block of a tool result, decoded: its bytes (empty when there is none).
std::string result_image(const nlohmann::json& result);

}  // namespace vimgpt::test
