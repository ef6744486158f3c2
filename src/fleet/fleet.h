// Running past one machine: browsers from a WebDriver server (Selenium Grid) or any remote DevTools endpoint,
// shards of one task file, and a task queue that machines which come and go share.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "launch/launch.h"

namespace vimgpt::fleet {

using Json = nlohmann::json;
using std::chrono::milliseconds;

// ---- Browsers elsewhere -------------------------------------------------------------------------------------

struct BrowserOptions {
  wire::HttpHeaders headers;  // every request to the endpoint: /json/version, WebDriver's, the WebSocket handshake
  // webdriver+ only: merged (JSON merge patch) into the new session's capabilities.alwaysMatch, over
  // default_webdriver_capabilities(engine); its goog:chromeOptions.args are added to the defaults' (a
  // --disable-features joins vimgpt's).
  Json webdriver_capabilities = Json::object();
  milliseconds timeout = wire::kDefaultConnectTimeout;
  // webdriver+ only: the browser the session asks for. Chromium is driven over the session's CDP socket ("se:cdp"),
  // Firefox over its WebDriver BiDi socket ("webSocketUrl": the session is the BiDi session).
  launch::Engine engine = launch::Engine::Chromium;
  // Asked about once a second while a WebDriver server makes us wait (a Grid queueing a new session for minutes):
  // true ends the wait at once, as ErrorKind::Cancelled, and a session the server answered with all the same is
  // deleted. A DevTools endpoint is not asked once it is true; its connect is bounded by `timeout` a phase instead.
  // Empty: every wait runs to its answer or its timeout.
  std::function<bool()> stop;
  // webdriver+ only: told once, in words for a person, when a new session has not been answered after
  // queued_notice_after (a Grid queues requests while every slot is busy, up to its --session-request-timeout).
  std::function<void(const std::string& message)> on_queued;
  // Starting a browser on a node takes a second or two; a request unanswered for longer is most likely queued.
  milliseconds queued_notice_after{5000};
};

// The longest wait for a new session (Grid's own --session-request-timeout is 300 s by default): a connect timeout
// would give up on a busy Grid that would have answered.
inline constexpr milliseconds kNewSessionTimeout{300000};

// What a WebDriver session asks for unless told otherwise: Chromium headless with vimgpt's disabled features, or
// Firefox headless with its WebDriver BiDi socket and the prefs vimgpt's own Firefox gets.
Json default_webdriver_capabilities(launch::Engine engine = launch::Engine::Chromium);

// ws(s):// and http(s):// as wire::connect_browser; webdriver+http(s)://HOST:PORT[/PATH] (a Selenium Grid, or any
// W3C WebDriver server: Chromium sessions that announce "se:cdp", Firefox sessions with a "webSocketUrl"): a new
// session, its socket driven like any remote browser, the session deleted when the transport closes (or at once when
// it cannot be used). Cancelled when options.stop ended a wait.
// USER:PASSWORD@ in a webdriver URL becomes Basic authorisation, as Selenium's own clients take it.
// With options.engine Firefox, ws(s)://HOST:PORT is a running Firefox's own BiDi socket (open_bidi_session); http(s)://
// is refused (Firefox serves no DevTools endpoint).
Result<std::unique_ptr<wire::Transport>> connect_browser(std::string_view url, const BrowserOptions& options = {});

// ws(s)://HOST:PORT[/session] of a Firefox started with --remote-debugging-port: its socket, with a new BiDi session
// on it that the transport ends (session.end) when it closes. Firefox takes one session at a time: one held by
// another client is an error that says so.
Result<std::unique_ptr<wire::Transport>> open_bidi_session(std::string_view url, const BrowserOptions& options);

// A session's announced se:cdp (or webSocketUrl) URL as this machine reaches it: one naming localhost (or 0.0.0.0) gets
// the WebDriver server's host, port and TLS instead, unless that server is on this machine too.
Result<std::string> reachable_cdp_url(std::string_view announced, std::string_view server_url);

// ---- Shards: one task file, many machines -------------------------------------------------------------------

// One of N parts of a task file, for one machine of many (a Slurm array task, a Kubernetes Indexed Job's pod).
struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
};
// FNV-1a, 64 bits, of a task id: the same on every machine and build (std::hash is neither).
std::uint64_t stable_hash(std::string_view id);
// Whether a task is in a shard: stable_hash(id) mod count == index. The id decides, never the line number, so
// a task keeps its shard when lines are added or moved.
bool in_shard(const Shard& shard, std::string_view id);
// --shard: "K/N"; "auto" (Slurm's SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT); "auto/N" (Kubernetes'
// JOB_COMPLETION_INDEX, or Slurm's array index, out of N). `env` reads a variable (null when unset).
// InvalidArgument saying what to pass instead.
using EnvReader = const char* (*)(const char*);
Result<Shard> parse_shard(std::string_view text, EnvReader env);

// ---- The shared task queue ----------------------------------------------------------------------------------
//
// A Redis stream read through a consumer group (Redis 6.2+, Debian's redis-server; the client is Debian's
// hiredis). At least once: a task stays pending with the worker that took it until its result and
// acknowledgement are written in one MULTI/EXEC; a running task's worker keeps it (heartbeat); a task whose
// worker went quiet for longer than `claim_idle` is taken by another. Keys under NAME: NAME:tasks (the stream:
// one entry a delivery of a task, fields "id", "task", "attempts"), NAME:ids (every id pushed), NAME:results
// (id → its first result line).

struct QueueUrl {
  std::string host;
  int port = 6379;
  int database = 0;
  std::string password;  // empty: no AUTH
  std::string name;      // the key prefix
};

// redis://[:PASSWORD@]HOST[:PORT][/DB]/NAME. rediss:// is refused: Debian 12's hiredis (0.14) has no TLS.
Result<QueueUrl> parse_queue_url(std::string_view url);

// A delivery past this many (the first included) is not run again: it is recorded as an error.
inline constexpr int kMaxDeliveries = 3;

// One task taken by a worker.
struct Delivery {
  std::string entry;  // the stream entry id
  std::string id;     // the task's id
  Json task;          // the task line as pushed
  int delivery = 1;   // 1 the first time this task is run, 2 after one worker died or put it back, ...
};

struct PushCounts {
  int pushed = 0;
  int skipped = 0;  // ids pushed before
};

struct QueueStatus {
  std::int64_t pushed = 0;   // ids ever pushed
  std::int64_t waiting = 0;  // not taken by any worker yet
  std::int64_t running = 0;  // taken, no result yet
  std::int64_t done = 0;     // results with status "done"
  std::int64_t failed = 0;   // other results
};

// One connection; use one per thread.
class Queue {
 public:
  static Result<Queue> connect(const QueueUrl& url, milliseconds timeout = milliseconds(5000));
  ~Queue();
  Queue(Queue&&) noexcept;
  Queue& operator=(Queue&&) noexcept;
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // Adds tasks whose ids were never pushed (each a JSON object with "id").
  Result<PushCounts> push(const std::vector<Json>& tasks);
  // The next task for `consumer`: first one another worker left idle for longer than `claim_idle`, else a new
  // one, waiting up to `wait` (0: not at all). Nothing when there is none; a task delivered kMaxDeliveries times
  // already is recorded as an error result on the way, never returned.
  Result<std::optional<Delivery>> take(const std::string& consumer, milliseconds claim_idle, milliseconds wait);
  // Tells the others `consumer` still runs it (resets its idle time).
  Status heartbeat(const std::string& consumer, const Delivery& delivery);
  // Records the result line (the first one for an id wins) and acknowledges the delivery, together or not at all.
  Status finish(const Delivery& delivery, const Json& result);
  // Puts the task back at once for any worker (its browser died, not the task).
  Status put_back(const Delivery& delivery);
  // Whether every task pushed has a result.
  Result<bool> drained();
  Result<QueueStatus> status();
  // Every result so far, by id.
  Result<std::vector<std::pair<std::string, Json>>> results();

 private:
  struct Connection;
  explicit Queue(std::unique_ptr<Connection> connection, QueueUrl url);
  std::unique_ptr<Connection> connection_;
  QueueUrl url_;
};

}  // namespace vimgpt::fleet
