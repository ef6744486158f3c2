// `vimgpt session start|stop|list` and the verbs (open, look, click, ...): vimgpt as a command-line tool for
// coding agents. A session is `vimgpt mcp --http` on a loopback port with a token, started in the background by
// the first verb; each verb is one MCP tools/call to it, so the verbs and the MCP tools are one implementation.
// The session's state (pid, port, token, MCP session id) is a file only its user can read.
#include "cli/session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "common/base64.h"
#include "common/file.h"
#include "common/text.h"
#include "http/http.h"

extern char** environ;

namespace vimgpt::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kExitToolFailed = 1;
// How long a starting server may take to listen (it launches no browser until the first tool call).
constexpr int kStartTimeoutMs = 30000;
// A background session nobody uses for an hour stops, so a forgotten one does not keep a browser forever.
constexpr int kDefaultExitIdleSeconds = 3600;

// $VIMGPT_SESSION_DIR, else $XDG_RUNTIME_DIR/vimgpt, else $TMPDIR/vimgpt-UID: private to the user (0700).
Result<fs::path> state_dir() {
  fs::path dir;
  if (const char* given = std::getenv("VIMGPT_SESSION_DIR"); given != nullptr && *given != '\0') {
    dir = given;
  } else if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != '\0') {
    dir = fs::path(runtime) / "vimgpt";
  } else {
    const char* tmp = std::getenv("TMPDIR");
    dir = fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / ("vimgpt-" + std::to_string(::getuid()));
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return fail(ErrorKind::Io, "cannot create the session folder " + dir.string() + ": " + error.message());
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0 || info.st_uid != ::getuid()) {
    return fail(ErrorKind::Io, "the session folder " + dir.string() + " is not yours: set VIMGPT_SESSION_DIR");
  }
  ::chmod(dir.c_str(), 0700);
  return dir;
}

Status check_name(const std::string& name) {
  const bool allowed = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '-';
  });
  if (allowed && name != "." && name != "..") return ok();
  return fail(ErrorKind::InvalidArgument,
              "--session takes a name of letters, digits, '.', '_' and '-' (at most 64), not '" + name + "'");
}

struct State {
  int pid = 0;
  int port = 0;
  std::string token;
  std::string mcp_session;  // Mcp-Session-Id
  std::string frame;        // where look's frames are written unless -o says otherwise
};

fs::path state_file(const fs::path& dir, const std::string& name) {
  return dir / (name + ".json");
}

Result<State> read_state(const fs::path& file) {
  VIMGPT_TRY(std::string text, read_file(file.string()));
  const json saved = json::parse(text, nullptr, false);
  if (!saved.is_object()) return fail(ErrorKind::Parse, file.string() + " is not a session's state");
  State state;
  state.pid = saved.value("pid", 0);
  state.port = saved.value("port", 0);
  state.token = saved.value("token", "");
  state.mcp_session = saved.value("mcp_session", "");
  state.frame = saved.value("frame", "");
  return state;
}

Status write_state(const fs::path& file, const State& state) {
  const json saved = {{"pid", state.pid},
                      {"port", state.port},
                      {"token", state.token},
                      {"mcp_session", state.mcp_session},
                      {"frame", state.frame}};
  // Readable by its user only: the token drives the browser.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(ErrorKind::Io, "cannot write " + file.string() + ": " + std::strerror(errno));
  const std::string text = saved.dump() + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) return fail(ErrorKind::Io, "cannot write " + file.string());
  return ok();
}

// The process is a vimgpt serving a session: the same executable as this one.
bool is_our_server(int pid) {
  if (pid <= 0) return false;
  std::error_code error;
  const auto theirs = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
  if (error) return false;
  const auto ours = fs::read_symlink("/proc/self/exe", error);
  return !error && theirs == ours;
}

// A server's MCP endpoint, called with the session's token and id.
class SessionLink {
 public:
  explicit SessionLink(const State& state) : state_(state) {}

  Result<json> post(const json& message, const std::string& mcp_session) {
    http::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(state_.port) + "/mcp";
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", "application/json, text/event-stream");
    request.headers.set("Authorization", "Bearer " + state_.token);
    if (!mcp_session.empty()) request.headers.set("Mcp-Session-Id", mcp_session);
    request.body = message.dump();
    request.connect_timeout = std::chrono::milliseconds(2000);
    request.total_timeout = std::chrono::hours(1);  // a browse may take long; Ctrl-C ends the verb
    VIMGPT_TRY(auto response, client_.perform(request));
    if (auto id = response.headers.get("Mcp-Session-Id"); id && mcp_session.empty()) session_id_ = std::string(*id);
    if (response.status == 202) return json();
    const json body = json::parse(response.body, nullptr, false);
    if (body.is_discarded()) {
      return fail(ErrorKind::Protocol,
                  "the session answered HTTP " + std::to_string(response.status) + " with no JSON: " + response.body);
    }
    if (response.status == 404) return fail(ErrorKind::NotFound, "the session's MCP session has ended");
    return body;
  }

  std::string session_id_;  // the one initialize began

 private:
  const State& state_;
  http::Client client_;
};

// Opens the MCP session verbs share: initialize, then initialized.
Result<std::string> begin_mcp_session(const State& state) {
  SessionLink link(state);
  VIMGPT_TRY(json reply, link.post({{"jsonrpc", "2.0"},
                                    {"id", 1},
                                    {"method", "initialize"},
                                    {"params",
                                     {{"protocolVersion", std::string(mcp::kProtocolVersions[0])},
                                      {"capabilities", json::object()},
                                      {"clientInfo", {{"name", "vimgpt-cli"}, {"version", VIMGPT_VERSION}}}}}},
                                   {}));
  if (!reply.contains("result") || link.session_id_.empty()) {
    return fail(ErrorKind::Protocol, "the session did not begin: " + reply.dump());
  }
  VIMGPT_TRY_VOID(link.post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, link.session_id_));
  return link.session_id_;
}

// Waits (bounded) for the server's "PORT\n" on `fd`; its end without one means the server exited.
Result<int> read_ready_port(int fd, const fs::path& log) {
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartTimeoutMs);
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return fail(ErrorKind::Timeout, "the session did not start in time; see " + log.string());
    pollfd readable{fd, POLLIN, 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    char chunk[64];
    const ssize_t n = ready > 0 ? ::read(fd, chunk, sizeof chunk) : 0;
    if (n > 0) {
      got.append(chunk, static_cast<std::size_t>(n));
      if (got.find('\n') != std::string::npos) return std::atoi(got.c_str());
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    auto said = read_file(log.string());
    return fail(ErrorKind::BrowserExited, "the session's server exited before it served: " +
                                              std::string(vimgpt::trim(said ? *said : std::string("(no log)"))));
  }
}

// argv or envp for posix_spawn: the strings' own bytes, then a null.
std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

// Starts `vimgpt mcp --http` in the background (its own session leader, so it outlives the terminal), waits
// until it listens, and begins the MCP session the verbs share.
Result<State> start_server(const fs::path& dir, const std::string& name, const std::vector<std::string>& flags) {
  const fs::path log = dir / (name + ".log");
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return fail(ErrorKind::Io, std::string("pipe: ") + std::strerror(errno));
  State state;
  state.token = random_hex(8);
  state.frame = (dir / (name + "-frame.jpg")).string();
  std::error_code error;
  const std::string self = fs::read_symlink("/proc/self/exe", error).string();
  std::vector<std::string> args = {self, "mcp", "--http", "127.0.0.1:0", "--shared-browser"};
  if (std::find(flags.begin(), flags.end(), "--exit-idle") == flags.end()) {
    args.insert(args.end(), {"--exit-idle", std::to_string(kDefaultExitIdleSeconds)});
  }
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv = c_strings(args);
  // The token goes in the environment, which only this user can read, not on the command line.
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    if (!variable.starts_with("VIMGPT_MCP_TOKEN=") && !variable.starts_with("VIMGPT_READY_FD=")) {
      environment.emplace_back(variable);
    }
  }
  environment.emplace_back("VIMGPT_MCP_TOKEN=" + state.token);
  environment.emplace_back("VIMGPT_READY_FD=3");
  std::vector<char*> envp = c_strings(environment);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_adddup2(&actions, ready[1], 3);  // dup2 clears close-on-exec
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, self.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(ready[1]);
  if (spawned != 0) {
    ::close(ready[0]);
    return fail(ErrorKind::Io, "cannot start " + self + ": " + std::strerror(spawned));
  }
  auto port = read_ready_port(ready[0], log);
  ::close(ready[0]);
  if (!port) return port.failure();
  state.pid = pid;
  state.port = *port;
  auto begun = begin_mcp_session(state);
  if (!begun) {
    ::kill(pid, SIGTERM);
    return begun.failure();
  }
  state.mcp_session = *begun;
  VIMGPT_TRY_VOID(write_state(state_file(dir, name), state));
  return state;
}

// Waits for a process that is not our child to exit (a pidfd becomes readable), at most `timeout`.
bool wait_for_exit(int pid, std::chrono::milliseconds timeout) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return errno == ESRCH;  // already gone
  pollfd gone{pidfd, POLLIN, 0};
  int ready = 0;
  do {
    ready = ::poll(&gone, 1, static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  ::close(pidfd);
  return ready > 0;
}

// The running session `name`: its state, or NotFound when none runs (a state left by a server that is gone
// is removed).
Result<State> running_session(const fs::path& dir, const std::string& name) {
  const fs::path file = state_file(dir, name);
  if (!fs::exists(file)) return fail(ErrorKind::NotFound, "no session '" + name + "'");
  auto state = read_state(file);
  if (state && is_our_server(state->pid)) return state;
  std::error_code error;
  fs::remove(file, error);
  return fail(ErrorKind::NotFound, "the session '" + name + "' had ended (its server is gone)");
}

Status stop_server(const fs::path& dir, const std::string& name, const State& state) {
  ::kill(state.pid, SIGTERM);  // it ends its browser and removes its profile, then exits
  if (!wait_for_exit(state.pid, std::chrono::seconds(30))) {
    return fail(ErrorKind::Timeout, "the session '" + name + "' (pid " + std::to_string(state.pid) +
                                        ") did not stop within 30 s; its log: " + (dir / (name + ".log")).string());
  }
  std::error_code error;
  fs::remove(state_file(dir, name), error);
  fs::remove(dir / (name + ".log"), error);
  return ok();
}

// ---- verbs -----------------------------------------------------------------------------------------------

enum class ParamType { Text, Words, Integer, Flag, Labels, Json };

struct Param {
  std::string flag;  // "" for a positional argument
  std::string key;   // the tool's argument
  std::string help;
  ParamType type = ParamType::Text;
  bool required = true;
};

struct Verb {
  std::string name;  // the command
  std::string tool;
  std::string help;
  std::vector<Param> params;
};

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> kVerbs = {
      {"open", "open", "Load URL and look at it", {{"", "url", "the address (https:// is added when missing)"}}},
      {"look", "look", "The labelled frame (written to a file) and the labels", {}},
      {"click", "click", "Click a label", {{"", "label", "a label from the last look, e.g. AB"}}},
      {"double-click", "double_click", "Double-click a label", {{"", "label", "a label"}}},
      {"right-click", "right_click", "Right-click a label", {{"", "label", "a label"}}},
      {"hover", "hover", "Rest the pointer on a label (hover menus open)", {{"", "label", "a label"}}},
      {"type",
       "type",
       "Type TEXT into a label's field (or the focused one); Enter follows unless --no-enter",
       {{"", "text", "what to type; <secret:NAME> types a configured secret"},
        {"--into", "label", "the field's label", ParamType::Text, false},
        {"--enter", "enter", "always press Enter after it", ParamType::Flag, false},
        {"--no-enter", "enter", "never press Enter after it", ParamType::Flag, false}}},
      {"select",
       "select",
       "Choose OPTION of the drop-down LABEL",
       {{"", "label", "the drop-down's label"}, {"", "option", "the option's text"}}},
      {"key", "key", "Press keys: Enter, Escape, Control+A, Shift+Tab, ...", {{"", "key", "the key or combination"}}},
      {"scroll",
       "scroll",
       "Scroll about one screen (down or up); --in LABEL turns the wheel over that list or frame",
       {{"", "direction", "down or up"}, {"--in", "label", "the scrolling element's label", ParamType::Text, false}}},
      {"back", "back", "Go back to the previous page", {}},
      {"drag",
       "drag",
       "Drag from one label to another (or to x,y pixels of the last frame)",
       {{"", "from", "a label or x,y", ParamType::Labels}, {"", "to", "a label or x,y", ParamType::Labels}}},
      {"select-text",
       "select_text",
       "Select words as the page shows them",
       {{"", "text", "the words"}, {"--in", "label", "where they are", ParamType::Text, false}}},
      {"find", "find", "Labels and screen text that hold WORDS", {{"", "query", "words", ParamType::Words}}},
      {"tabs", "tabs", "The open tabs", {}},
      {"tab", "switch_tab", "Work in tab N (as tabs numbers them)", {{"", "tab", "its number", ParamType::Integer}}},
      {"upload",
       "upload",
       "Give a file input a file from the session's --upload-dir",
       {{"", "label", "the input's label"}, {"", "file", "a file name in that folder"}}},
      {"actions",
       "actions",
       "Several actions at once, as vimgpt's model writes them: '[{\"click\":\"A\",\"type\":\"ada\"}, ...]'",
       {{"", "actions", "a JSON list of actions", ParamType::Json}}},
      {"browse",
       "browse",
       "Do a whole task with the session's own model (start the session with one configured)",
       {{"", "objective", "what to do", ParamType::Words},
        {"--start-url", "start_url", "the first page (default: the current one)", ParamType::Text, false},
        {"--max-steps", "max_steps", "the step budget", ParamType::Integer, false}}},
  };
  return kVerbs;
}

std::string slot(const Param& param) {
  return param.flag.empty() ? param.key : param.flag;
}

// "x,y" → [x, y]; anything else is a label.
json label_or_point(const std::string& given) {
  const auto comma = given.find(',');
  if (comma == std::string::npos) return given;
  const std::string x(trim(std::string_view(given).substr(0, comma)));
  const std::string y(trim(std::string_view(given).substr(comma + 1)));
  if (is_plain_decimal(x) && is_plain_decimal(y)) {
    return json::array({std::strtod(x.c_str(), nullptr), std::strtod(y.c_str(), nullptr)});
  }
  return given;
}

Result<json> tool_arguments(const Verb& verb, const VerbInput& input) {
  json arguments = json::object();
  for (const auto& param : verb.params) {
    const std::string at = slot(param);
    if (param.type == ParamType::Flag) {
      if (!input.flags.count(at) || !input.flags.at(at)) continue;
      if (arguments.contains(param.key))
        return fail(ErrorKind::InvalidArgument, "--enter and --no-enter exclude each other");
      arguments[param.key] = param.flag == "--enter";
      continue;
    }
    if (param.type == ParamType::Words) {
      const auto found = input.words.find(at);
      if (found == input.words.end() || found->second.empty()) continue;
      std::string joined;
      for (const auto& word : found->second) joined += (joined.empty() ? "" : " ") + word;
      arguments[param.key] = joined;
      continue;
    }
    const auto found = input.text.find(at);
    if (found == input.text.end()) continue;
    const std::string& value = found->second;
    switch (param.type) {
      case ParamType::Integer: {
        char* end = nullptr;
        const long number = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0') {
          return fail(ErrorKind::InvalidArgument,
                      verb.name + ": " + param.key + " takes a whole number, not '" + value + "'");
        }
        arguments[param.key] = number;
        break;
      }
      case ParamType::Labels: arguments[param.key] = label_or_point(value); break;
      case ParamType::Json: {
        json parsed = json::parse(value, nullptr, false);
        if (parsed.is_discarded()) {
          return fail(ErrorKind::InvalidArgument, verb.name + ": '" + value + "' is not JSON");
        }
        arguments[param.key] = std::move(parsed);
        break;
      }
      default: arguments[param.key] = value;
    }
  }
  // The look verb writes the frame to a file each time: it is asked for the page even when it is the one last shown.
  if (verb.tool == "look") arguments["again"] = true;
  return arguments;
}

// Prints the tool result's text, writes its frame; the exit code.
int print_result(const json& reply, const std::string& frame_path) {
  if (reply.contains("error")) {
    std::cerr << "vimgpt: " << reply["error"].value("message", reply["error"].dump()) << "\n";
    return reply["error"].value("code", 0) == static_cast<int>(mcp::RpcError::InvalidParams) ? kExitUsage
                                                                                             : kExitToolFailed;
  }
  const json& result = reply.value("result", json::object());
  for (const auto& block : result.value("content", json::array())) {
    if (block.value("type", "") == "text") {
      const std::string text = block.value("text", "");
      std::cout << text << (text.ends_with('\n') ? "" : "\n");
    } else if (block.value("type", "") == "image") {
      auto bytes = base64_decode(block.value("data", ""));
      if (!bytes) {
        std::cerr << "vimgpt: the frame did not decode: " << bytes.error().message << "\n";
        return kExitToolFailed;
      }
      std::ofstream out(frame_path, std::ios::binary | std::ios::trunc);
      out << *bytes;
      if (!out.flush()) {
        std::cerr << "vimgpt: cannot write the frame to " << frame_path << "\n";
        return kExitToolFailed;
      }
      std::cout << "Frame: " << frame_path << "\n";
    }
  }
  return result.value("isError", false) ? kExitToolFailed : 0;
}

}  // namespace

bool SessionFlags::given() const {
  const auto chosen = [](const CLI::App* command) { return command != nullptr && command->parsed(); };
  return chosen(start) || chosen(stop) || chosen(list) || std::any_of(verbs.begin(), verbs.end(), chosen);
}

void add_session_commands(CLI::App& app, SessionFlags& flags) {
  auto* session = app.add_subcommand("session", "A background browser session the verbs (open, look, click, ...) use");
  session->require_subcommand(1);
  auto* start = session->add_subcommand(
      "start", "Start session NAME; flags after -- go to its `vimgpt mcp` (e.g. -- --allow-domain example.com)");
  start->allow_extras();
  auto* stop = session->add_subcommand("stop", "Stop a session: its browser closes, its profile is removed");
  auto* list = session->add_subcommand("list", "The sessions running");
  for (auto* command : {start, stop}) {
    command->add_option("--session", flags.name, "Which session (default: default)");
  }
  flags.start = start;
  flags.stop = stop;
  flags.list = list;

  const std::string group = "Browser session verbs (each talks to the --session, starting it on first use)";
  for (const auto& verb : verbs()) {
    auto* command = app.add_subcommand(verb.name, verb.help);
    command->group(group);
    command->add_option("--session", flags.name, "Which session (default: default)");
    if (verb.tool == "look" || verb.tool == "open") {
      command->add_option("-o,--output", flags.frame, "Write the frame here (default: the session's frame file)");
    }
    for (const auto& param : verb.params) {
      const std::string at = slot(param);
      if (param.type == ParamType::Flag) {
        command->add_flag(param.flag, flags.input->flags[at], param.help);
      } else if (param.type == ParamType::Words) {
        command->add_option(param.key, flags.input->words[at], param.help)->required(param.required);
      } else {
        auto* option =
            command->add_option(param.flag.empty() ? param.key : param.flag, flags.input->text[at], param.help);
        if (param.flag.empty()) option->required(param.required);
      }
    }
    flags.verbs.push_back(command);
  }
}

int session_command(const SessionFlags& flags) {
  if (auto named = check_name(flags.name); !named) return usage(named.error().message);
  auto dir = state_dir();
  if (!dir) return report_error(dir.error());
  if (flags.list->parsed()) {
    int shown = 0;
    for (const auto& entry : fs::directory_iterator(*dir)) {
      if (entry.path().extension() != ".json") continue;
      const std::string name = entry.path().stem().string();
      auto state = running_session(*dir, name);
      if (!state) continue;
      std::cout << name << "  pid " << state->pid << "  http://127.0.0.1:" << state->port << "/mcp\n";
      ++shown;
    }
    if (shown == 0) std::cerr << "no session is running (the first verb starts one)\n";
    return 0;
  }
  if (flags.stop->parsed()) {
    auto state = running_session(*dir, flags.name);
    if (!state) return report_error(state.error());
    if (auto stopped = stop_server(*dir, flags.name, *state); !stopped) return report_error(stopped.error());
    std::cerr << "stopped session '" << flags.name << "'\n";
    return 0;
  }
  if (flags.start->parsed()) {
    if (auto state = running_session(*dir, flags.name)) {
      return usage("the session '" + flags.name + "' is already running (pid " + std::to_string(state->pid) +
                   "): stop it first to start it with other flags");
    }
    auto started = start_server(*dir, flags.name, flags.start->remaining());
    if (!started) return report_error(started.error());
    std::cerr << "started session '" << flags.name << "' (pid " << started->pid << ")\n";
    return 0;
  }

  const Verb* verb = nullptr;
  for (std::size_t i = 0; i < flags.verbs.size(); ++i) {
    if (flags.verbs[i]->parsed()) verb = &verbs()[i];
  }
  if (verb == nullptr) return usage("no session command given");
  auto arguments = tool_arguments(*verb, *flags.input);
  if (!arguments) return report_error(arguments.error());
  auto state = running_session(*dir, flags.name);
  if (!state) {
    if (state.error().kind == ErrorKind::NotFound && state.error().message.find("had ended") != std::string::npos) {
      std::cerr << "vimgpt: " << state.error().message << "; starting a new one (its pages start empty)\n";
    }
    state = start_server(*dir, flags.name, {});
    if (!state) return report_error(state.error());
  }
  SessionLink link(*state);
  auto reply = link.post({{"jsonrpc", "2.0"},
                          {"id", 1},
                          {"method", "tools/call"},
                          {"params", {{"name", verb->tool}, {"arguments", *arguments}}}},
                         state->mcp_session);
  if (!reply) {
    return report_error(Error{reply.error().kind, "the session '" + flags.name +
                                                      "' did not answer: " + reply.error().message +
                                                      " (vimgpt session stop, then try again)"});
  }
  return print_result(*reply, flags.frame.empty() ? state->frame : flags.frame);
}

}  // namespace vimgpt::cli
