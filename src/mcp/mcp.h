// The Model Context Protocol server: vimgpt as the eyes and hands of another agent. JSON-RPC 2.0 over stdio
// (one message a line) or Streamable HTTP (one /mcp endpoint); tools that open a page, look at it (the
// labelled frame and the hint list), act on a label, and run a whole task with vimgpt's own model.
// https://modelcontextprotocol.io/specification/2025-11-25
//
//   mcp::ServerOptions options;
//   options.open_tab = [] { return browser::Tab::launch({}); };  // started on the first tool call
//   mcp::Server server(std::move(options));
//   mcp::serve_stdio(server, STDIN_FILENO, std::cout, &stop);
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent.h"
#include "browser/browser.h"
#include "common/result.h"
#include "hints/hints.h"

namespace vimgpt::mcp {

using Json = nlohmann::json;

// Protocol revisions this server speaks, newest first; a client asking for another gets the newest.
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

// JSON-RPC's own error codes (https://www.jsonrpc.org/specification#error_object).
enum class RpcError {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  // In JSON-RPC's range for the server's own errors: a new session beyond --max-sessions.
  TooManySessions = -32000
};

// A JSON-RPC error reply (id null when the request's could not be read).
Json rpc_error(const Json& id, RpcError code, std::string message);

// A label line is 20-40 o200k tokens on the saved pages (its link target is most of it): 50 keep a dense page's
// list under ~2,000 tokens (docs/benchmarks.md, "MCP: capped observations").
inline constexpr std::size_t kDefaultMaxLabels = 50;

// After an acting tool, besides what the action did: Changed, the page as `look` shows it when it is not the one the
// client was last shown (else a line that says so); Look, the page every time; Never, nothing more. A call's own
// `look` argument overrides it.
enum class ObserveAfter { Changed, Look, Never };

// What one `browse` runs with.
struct BrowseSetup {
  std::unique_ptr<agent::Planner> planner;
  hints::CaptureOptions capture;
};

struct ServerOptions {
  // Starts the browser (a local Chromium or a tab in a remote one) on the first tool call; the tab is kept
  // for the session. Injected, so the server never knows how processes are spawned.
  std::function<Result<std::unique_ptr<browser::Tab>>()> open_tab;
  // For `browse`: a planner with vimgpt's configured model, telling it the JSON Schema the answer must fit (null:
  // none), in the mode the call asks for ("labels" or "computer-use"; empty: the server's --mode), and the capture
  // that mode shows the model (computer-use: the page unlabelled); empty or failing: browse says what to do.
  std::function<Result<BrowseSetup>(const Json& answer_schema, const std::string& mode)> make_browse;
  // Acting and capturing as the agent does: settle cap, secrets (<secret:NAME>), the upload folder, budgets.
  agent::AgentOptions agent;
  ObserveAfter observe_after = ObserveAfter::Changed;
  // The text block of look (and of every acting tool) lists at most this many labels and says how many it left
  // out; the frame still shows them all, and find searches them. 0: no cap.
  std::size_t max_labels = kDefaultMaxLabels;
  // --live: a tile in the live view for the session's tab, made when the tab opens. The session's acting calls and
  // browse runs are shown on it, and a person may pause it between calls. Empty: none.
  std::function<std::unique_ptr<agent::Overseer>(browser::Tab& tab, const std::atomic<bool>* cancelled)> watch;
  std::string name = "vimgpt";
  std::string version;
};

// Sends a JSON-RPC notification to the client (progress during `browse`).
using Notify = std::function<void(const Json& notification)>;

class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // One JSON-RPC message (a stdio line, an HTTP body): the reply to send, or nothing for a notification or a
  // reply. A batch (array) gets an array of replies. Malformed JSON, unknown methods and wrong argument types
  // are JSON-RPC errors; a failed action is a tool result with isError. Requests run one at a time.
  std::optional<Json> handle(const Json& message, const Notify& notify = {});
  std::optional<Json> handle_text(std::string_view text, const Notify& notify = {});
  // notifications/cancelled may arrive while a request runs (from the reader thread): this cancels it.
  void cancel(const Json& request_id);
  // The tools' descriptions, as tools/list gives them.
  [[nodiscard]] const Json& tools() const;
  // The session is over: a --record gets its last step (done, on the page as the client left it) and is
  // finished, and the browser is closed (a tool call after it opens another). Call it on the thread that ran
  // the tools, before that thread ends (a browser launched on a thread ends with it); serve_stdio and serve_http
  // do.
  void end();
  // Ends the running request early, as a cancellation would: the server is stopping.
  void interrupt();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads one message a line from the file descriptor `in` until it ends or `stop` is set (by a signal handler:
// SIGTERM or Ctrl-C), answering on `out`; requests run on a worker so that a cancellation can arrive while one
// runs. On `stop`, requests not begun are dropped and a running browse stops before its next step; the session
// ends as at the end of the input (Server::end). Returns 0.
int serve_stdio(Server& server, int in, std::ostream& out, const std::atomic<bool>* stop = nullptr);

// Makes the server of a new HTTP session, numbered from 1 in the order sessions began: its own browser (a
// Chromium, or a context of its own on a remote one), record and download folders.
using MakeServer = std::function<std::unique_ptr<Server>(int number)>;

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;                               // 0: any free port
  std::string token;                          // non-empty: every request needs "Authorization: Bearer TOKEN"
  std::function<void(int port)> ready;        // called once listening, with the port
  const std::atomic<bool>* stop = nullptr;    // set (e.g. by Ctrl-C) to stop serving
  int max_sessions = 0;                       // at once; one more initialize is refused (TooManySessions). 0: any
  std::chrono::milliseconds session_idle{0};  // a session with no request for this long is ended. 0: never
  std::chrono::milliseconds exit_idle{0};     // the server stops after this long with no request at all. 0: never
};

// Streamable HTTP on one /mcp endpoint: POST a message (answered as JSON, or as an event stream when the
// request asks for progress), GET for the server's event stream, DELETE to end a session. Requests whose
// Origin is not this loopback server are refused (403), as the specification asks against DNS rebinding.
// Each session gets a server of its own from `make_server` when it initializes, runs its calls on a thread of
// its own (sessions run in parallel; a session's calls one at a time) and is ended (Server::end, its browser
// closed) by DELETE, by session_idle and when serving stops.
Status serve_http(const MakeServer& make_server, const HttpOptions& options);
// Every session shares `server` (one browser, one call at a time): one person's clients (--shared-browser).
Status serve_http(Server& server, const HttpOptions& options);

}  // namespace vimgpt::mcp
