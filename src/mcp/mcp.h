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
  InternalError = -32603
};

// A JSON-RPC error reply (id null when the request's could not be read).
Json rpc_error(const Json& id, RpcError code, std::string message);

// After an acting tool: the page as `look` shows it, or only what the action did.
enum class ObserveAfter { Look, Never };

struct ServerOptions {
  // Starts the browser (a local Chromium or a tab in a remote one) on the first tool call; the tab is kept
  // for the session. Injected, so the server never knows how processes are spawned.
  std::function<Result<std::unique_ptr<browser::Tab>>()> open_tab;
  // For `browse`: a planner with vimgpt's configured model, telling it the JSON Schema the answer must fit (null:
  // none); empty or failing: browse says how to configure one.
  std::function<Result<std::unique_ptr<agent::Planner>>(const Json& answer_schema)> make_planner;
  // Acting and capturing as the agent does: settle cap, secrets (<secret:NAME>), the upload folder, budgets.
  agent::AgentOptions agent;
  ObserveAfter observe_after = ObserveAfter::Look;
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
  // finished. Call it on the thread that ran the tools, before that thread ends (a browser launched on a
  // thread ends with it); serve_stdio and serve_http do.
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

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;                             // 0: any free port
  std::string token;                        // non-empty: every request needs "Authorization: Bearer TOKEN"
  std::function<void(int port)> ready;      // called once listening, with the port
  const std::atomic<bool>* stop = nullptr;  // set (e.g. by Ctrl-C) to stop serving
};

// Streamable HTTP on one /mcp endpoint: POST a message (answered as JSON, or as an event stream when the
// request asks for progress), GET for the server's event stream, DELETE to end a session. Requests whose
// Origin is not this loopback server are refused (403), as the specification asks against DNS rebinding.
Status serve_http(Server& server, const HttpOptions& options);

}  // namespace vimgpt::mcp
