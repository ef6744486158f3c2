// The wire to a browser: transports (a pipe to a child browser, a WebSocket to a remote one), commands matched to
// replies by id, events routed by session, timeouts, and noticing a dead browser. Both protocols ride on it: the
// Chrome DevTools Protocol (https://chromedevtools.github.io/devtools-protocol/) and WebDriver BiDi
// (https://w3c.github.io/webdriver-bidi/), whose messages have the same id/method/params shape.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace vimgpt::wire {

using Json = nlohmann::json;
using std::chrono::milliseconds;

inline constexpr milliseconds kDefaultCommandTimeout{30000};

// Carries whole JSON messages to and from one browser. Implementations: a pipe to a child Chromium
// (it owns the process), a WebSocket to a remote one.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual Status send(std::string_view message) = 0;
  // Blocks until one whole message arrives; BrowserExited when the browser or the link is gone,
  // Cancelled after interrupt().
  virtual Result<std::string> receive() = 0;
  // Makes a blocked receive() return; safe to call from another thread.
  virtual void interrupt() = 0;
  // Ends the browser (for a child process) or the link (for a remote one). Idempotent.
  virtual void close() = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
  // The local browser's process id; 0 for a remote browser.
  [[nodiscard]] virtual int process_id() const { return 0; }
};

inline constexpr milliseconds kDefaultConnectTimeout{10000};

// HTTP headers sent to a remote browser's endpoint (a fleet's authorisation, for instance).
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// Connects to a browser that is already running (a Chromium with --remote-debugging-port, browserless, a
// Selenium Grid session's se:cdp socket: src/fleet) at its browser-level ws:// or wss:// DevTools URL, `headers` in the
// handshake. wss:// verifies the certificate against the system's roots and the host name. Each phase (resolve,
// connect, TLS, handshake) gets `timeout`. A link lost later is ErrorKind::BrowserExited from receive(), as for a dead
// pipe.
Result<std::unique_ptr<Transport>> connect_websocket(std::string_view url,
                                                     milliseconds timeout = kDefaultConnectTimeout,
                                                     const HttpHeaders& headers = {});
// http://HOST:PORT[?QUERY] (or https://) → the webSocketDebuggerUrl its /json/version?QUERY announces, the query
// carried onto it when it has none (browserless's ?token=); a ws:// or wss:// URL is returned as it is.
// InvalidArgument for anything else.
Result<std::string> resolve_browser_url(std::string_view http_or_ws_url, milliseconds timeout = kDefaultConnectTimeout);
Result<std::string> resolve_browser_url(std::string_view http_or_ws_url, const HttpHeaders& headers,
                                        milliseconds timeout);

// resolve_browser_url, then connect_websocket, `headers` sent with both.
Result<std::unique_ptr<Transport>> connect_browser(std::string_view url, milliseconds timeout = kDefaultConnectTimeout,
                                                   const HttpHeaders& headers = {});

struct Event {
  std::string method;
  Json params;
  std::string session_id;  // empty for browser-level events
};

class Connection {
 public:
  explicit Connection(std::unique_ptr<Transport> transport);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends a command and waits for its reply. A CDP error reply becomes ErrorKind::Protocol; a dead
  // browser fails every pending command with ErrorKind::BrowserExited, and a write that fails because it
  // is gone ends the connection at once (alive() is false when call() returns).
  Result<Json> call(std::string_view method, Json params = Json::object(), std::string_view session_id = {},
                    milliseconds timeout = kDefaultCommandTimeout);
  // Sends a command without waiting for its reply (safe from an event handler).
  void post(std::string_view method, Json params = Json::object(), std::string_view session_id = {});

  using Handler = std::function<void(const Event&)>;
  // Handlers run on the reader thread: they must not call call(); post() is fine. Connection.closed may
  // also come from the thread whose call() found the browser gone.
  std::uint64_t subscribe(Handler handler);
  void unsubscribe(std::uint64_t id);

  [[nodiscard]] bool alive() const;
  // Alive, and the browser answers a command within `timeout` (one that hangs keeps its end of the link open).
  bool answers(milliseconds timeout);
  // Why the connection ended (empty while alive).
  [[nodiscard]] std::string closed_reason() const;
  // Fails the commands of one session still waiting for replies that will never come (its renderer died).
  void abandon(std::string_view session_id, const std::string& reason);
  // Closes the browser or link and fails pending commands. Idempotent.
  void close();
  // The local browser's process id; 0 for a remote browser.
  [[nodiscard]] int process_id() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Buffers the events that match a filter from the moment it is created, so a caller can issue a command
// and then wait for its events without a race. Unsubscribes when destroyed.
class EventQueue {
 public:
  using Filter = std::function<bool(const Event&)>;
  EventQueue(Connection& connection, Filter filter);
  ~EventQueue();
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Waits for the next buffered event that satisfies `predicate` (others stay buffered for later calls).
  // Timeout when none comes in time; BrowserExited when the connection dies meanwhile.
  Result<Event> wait(const std::function<bool(const Event&)>& predicate, milliseconds timeout);
  // Whether a buffered event satisfies `predicate` (nothing is removed).
  bool contains(const std::function<bool(const Event&)>& predicate);
  // Removes and returns everything buffered.
  std::vector<Event> drain();

 private:
  struct Shared;
  Connection& connection_;
  std::shared_ptr<Shared> shared_;
  std::uint64_t subscription_ = 0;
};

}  // namespace vimgpt::wire
