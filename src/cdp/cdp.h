// The Chrome DevTools Protocol wire: launching Chromium, transports, commands matched to replies by id,
// events routed by flattened sessionId, timeouts, and noticing a dead browser.
// Protocol reference: https://chromedevtools.github.io/devtools-protocol/
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

namespace vimgpt::cdp {

using Json = nlohmann::json;
using std::chrono::milliseconds;

inline constexpr milliseconds kDefaultCommandTimeout{30000};

// Xvfb: the full browser, headed, on a virtual display of its own (Debian's Xvfb), for a machine without one: a
// browser as a person's, with no "Headless" anywhere, on a server.
enum class Display { Headless, Headed, Xvfb };

// The Chromium features a launched browser runs without (--disable-features=...); a browser started for the
// agent by hand should get them too (README). Back/forward cache restores fire no load events, and going
// back should load like any navigation. The WebUI omnibox popups: Chromium 156 keeps one loaded in a
// renderer of its own, even headless, and loads it again on every navigation of the tab, on the cores the
// capture needs. RenderDocument gives every new document a new frame host and compositor, whose first frame
// starts from nothing. IgnoreDuplicateNavs (on in chromium-headless-shell) drops a click's navigation to the
// URL of one still ongoing: a download's navigation lingers there after the file is saved, so the same download
// clicked again never began (1 run in 30 under load). The figures behind each: docs/benchmarks.md.
inline constexpr std::string_view kDisabledFeatures =
    "BackForwardCache,Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,"
    "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,RenderDocument,IgnoreDuplicateNavs";

// Which browser a local launch starts: Chromium (spoken to over CDP) or Firefox (over WebDriver BiDi).
enum class Engine { Chromium, Firefox };
// "chromium" or "firefox"; InvalidArgument otherwise.
Result<Engine> parse_engine(std::string_view name);
std::string_view to_string(Engine engine);

struct LaunchOptions {
  Engine engine = Engine::Chromium;
  // Firefox: empty: $FIREFOX_PATH, else Debian's /usr/lib/firefox-esr/firefox-esr.
  std::string firefox_path;
  // empty: $CHROME_PATH, else /usr/lib/chromium/chromium-headless-shell when headless without an extension and
  // installed, else /usr/lib/chromium/chromium
  std::string chrome_path;
  Display display = Display::Headless;
  std::string user_data_dir;  // empty: a fresh temporary profile, removed when the browser is closed
  std::string extension_dir;  // an unpacked extension to load (e.g. a real Vimium)
  std::string user_agent;
  int window_width = 1080;
  int window_height = 720;
  std::vector<std::string> extra_args;  // Chromium: a --disable-features here is added to kDisabledFeatures
  // Firefox: prefs written to the profile's user.js after ours (so they win), each a name and a value in user.js
  // syntax ("true", "3", "\"text\"").
  std::vector<std::pair<std::string, std::string>> firefox_prefs;
};

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

// Starts Chromium with --remote-debugging-pipe. The returned transport owns the process: destroying it
// ends and reaps the child and removes a temporary profile. The browser also ends when the thread that
// launched it does (PR_SET_PDEATHSIG follows the thread): launch from one that lives as long as the browser.
Result<std::unique_ptr<Transport>> launch_chromium(const LaunchOptions& options);

// Starts Firefox (Debian's firefox-esr; headless, headed, or on an Xvfb of its own) for WebDriver BiDi: a fresh profile
// (or user_data_dir) with the prefs an automated Firefox needs, and the WebSocket its remote agent announces,
// connected. The transport owns the process as launch_chromium's does. BiDi's messages ride on Connection: commands by
// id, "success"/"error" replies and "event"s (https://w3c.github.io/webdriver-bidi/).
Result<std::unique_ptr<Transport>> launch_firefox(const LaunchOptions& options);
// Those prefs as JSON values, for a Firefox that someone else starts (a WebDriver session's moz:firefoxOptions).
Json firefox_automation_prefs();

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

}  // namespace vimgpt::cdp
