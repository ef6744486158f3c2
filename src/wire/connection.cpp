#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "wire/wire.h"

namespace vimgpt::wire {

// The reader thread and callers share this; the thread keeps it alive until it has stopped.
struct Connection::State {
  struct Pending {
    bool done = false;
    Result<Json> result = Json();
    std::string session_id;
  };

  std::unique_ptr<Transport> transport;
  std::thread reader;

  mutable std::mutex mutex;
  std::condition_variable replied;
  std::map<std::uint64_t, std::shared_ptr<Pending>> pending;
  std::map<std::uint64_t, Handler> handlers;
  std::uint64_t next_handler = 1;
  std::atomic<std::uint64_t> next_id{1};
  bool alive = true;
  std::string closed_reason;

  // $VIMGPT_CDP_LOG: every message, both ways, with the time since the connection opened (README,
  // "Seeing what the browser was told").
  std::FILE* log = nullptr;
  std::chrono::steady_clock::time_point opened = std::chrono::steady_clock::now();

  ~State() {
    if (log != nullptr) std::fclose(log);
  }

  void open_log() {
    const char* path = std::getenv("VIMGPT_CDP_LOG");
    if (path == nullptr || *path == '\0') return;
    log = std::fopen(path, "a");
    if (log == nullptr) std::fprintf(stderr, "vimgpt: cannot write the CDP log to %s (VIMGPT_CDP_LOG)\n", path);
  }

  // One line per message, cut after 400 bytes (a frame's base64 would fill the file).
  void note(char direction, std::string_view message) const {
    if (log == nullptr) return;
    constexpr std::size_t kShown = 400;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - opened).count();
    const int shown = static_cast<int>(std::min(message.size(), kShown));
    if (message.size() > kShown) {
      std::fprintf(log, "%10.3f %c %.*s... (%zu bytes)\n", ms, direction, shown, message.data(), message.size());
    } else {
      std::fprintf(log, "%10.3f %c %.*s\n", ms, direction, shown, message.data());
    }
    std::fflush(log);
  }

  void dispatch(const Event& event) {
    std::vector<Handler> targets;
    {
      std::scoped_lock lock(mutex);
      targets.reserve(handlers.size());
      for (const auto& [id, handler] : handlers) targets.push_back(handler);
    }
    for (const auto& handler : targets) handler(event);
  }

  void deliver_reply(const Json& message) {
    const auto id = message["id"].get<std::uint64_t>();
    std::scoped_lock lock(mutex);
    auto it = pending.find(id);
    if (it == pending.end()) return;  // a post() or a command that already timed out
    if (const auto error = message.find("error"); error != message.end()) {
      // Read field by field: a broken or hostile endpoint may send any shape (found by fuzz/cdp_reader_fuzz).
      std::string text = "unknown error";
      std::string code;
      if (error->is_object()) {
        if (const auto m = error->find("message"); m != error->end() && m->is_string()) text = m->get<std::string>();
        if (const auto c = error->find("code"); c != error->end()) code = " (" + c->dump() + ")";
      } else if (error->is_string()) {  // WebDriver BiDi: {"type": "error", "error": CODE, "message": TEXT}
        if (const auto m = message.find("message"); m != message.end() && m->is_string()) text = m->get<std::string>();
        code = " (" + error->get<std::string>() + ")";
      }
      it->second->result = fail(ErrorKind::Protocol, text + code);
    } else {
      it->second->result = message.value("result", Json::object());
    }
    it->second->done = true;
    pending.erase(it);
    replied.notify_all();
  }

  void mark_dead(const std::string& reason) {
    {
      std::scoped_lock lock(mutex);
      if (!alive) return;
      alive = false;
      closed_reason = reason;
      for (auto& [id, slot] : pending) {
        slot->result = fail(ErrorKind::BrowserExited, reason);
        slot->done = true;
      }
      pending.clear();
      replied.notify_all();
    }
    dispatch(Event{"Connection.closed", Json{{"reason", reason}}, ""});
  }

  void read_loop() {
    while (true) {
      auto message = transport->receive();
      if (!message) {
        mark_dead(message.error().message);
        return;
      }
      note('<', *message);
      Json parsed = Json::parse(*message, nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_object()) continue;  // never expected from Chromium; skip rather than die
      try {
        if (parsed.contains("id") && parsed["id"].is_number_unsigned()) {
          deliver_reply(parsed);
        } else if (parsed.contains("method") && parsed["method"].is_string()) {
          const auto session = parsed.find("sessionId");
          dispatch(Event{parsed["method"].get<std::string>(), parsed.value("params", Json::object()),
                         session != parsed.end() && session->is_string() ? session->get<std::string>() : ""});
        }
      } catch (const Json::exception&) {
        // A field of the wrong type, read by a handler: that message is skipped, the reader goes on. A
        // reader that threw would take the whole process down.
      }
    }
  }
};

Connection::Connection(std::unique_ptr<Transport> transport) : state_(std::make_shared<State>()) {
  state_->open_log();
  state_->transport = std::move(transport);
  state_->reader = std::thread([state = state_] { state->read_loop(); });
}

Connection::~Connection() {
  close();
  if (state_->reader.joinable()) state_->reader.join();
}

namespace {
std::string encode_command(std::uint64_t id, std::string_view method, Json params, std::string_view session_id) {
  Json message = {{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!session_id.empty()) message["sessionId"] = session_id;
  return message.dump(-1, ' ', false, Json::error_handler_t::replace);
}
}  // namespace

Result<Json> Connection::call(std::string_view method, Json params, std::string_view session_id, milliseconds timeout) {
  const auto id = state_->next_id++;
  auto slot = std::make_shared<State::Pending>();
  slot->session_id = session_id;
  {
    std::scoped_lock lock(state_->mutex);
    if (!state_->alive) return fail(ErrorKind::BrowserExited, state_->closed_reason);
    state_->pending.emplace(id, slot);
  }
  const std::string command = encode_command(id, method, std::move(params), session_id);
  state_->note('>', command);
  if (auto sent = state_->transport->send(command); !sent) {
    {
      std::scoped_lock lock(state_->mutex);
      state_->pending.erase(id);
    }
    // The write can fail before the reader sees the end of the stream: the connection is over now, so
    // whoever asks alive() next (a restart, a batch hand-over) already knows.
    if (sent.error().kind == ErrorKind::BrowserExited) state_->mark_dead(sent.error().message);
    return sent.failure();
  }
  std::unique_lock lock(state_->mutex);
  if (!state_->replied.wait_for(lock, timeout, [&] { return slot->done; })) {
    state_->pending.erase(id);
    return fail(ErrorKind::Timeout, "the browser did not answer " + std::string(method) + " within " +
                                        std::to_string(timeout.count()) + " ms");
  }
  if (!slot->result && slot->result.error().kind == ErrorKind::Protocol) {
    return fail(ErrorKind::Protocol, std::string(method) + ": " + slot->result.error().message);
  }
  return std::move(slot->result);
}

void Connection::abandon(std::string_view session_id, const std::string& reason) {
  std::scoped_lock lock(state_->mutex);
  for (auto it = state_->pending.begin(); it != state_->pending.end();) {
    if (it->second->session_id != session_id) {
      ++it;
      continue;
    }
    it->second->result = fail(ErrorKind::Protocol, reason);
    it->second->done = true;
    it = state_->pending.erase(it);
  }
  state_->replied.notify_all();
}

void Connection::post(std::string_view method, Json params, std::string_view session_id) {
  // A failed write is left to the reader to report: post() runs inside event handlers, where dispatching
  // Connection.closed would re-enter them.
  const std::string command = encode_command(state_->next_id++, method, std::move(params), session_id);
  state_->note('>', command);
  [[maybe_unused]] auto sent = state_->transport->send(command);
}

std::uint64_t Connection::subscribe(Handler handler) {
  std::scoped_lock lock(state_->mutex);
  const auto id = state_->next_handler++;
  state_->handlers.emplace(id, std::move(handler));
  return id;
}

void Connection::unsubscribe(std::uint64_t id) {
  std::scoped_lock lock(state_->mutex);
  state_->handlers.erase(id);
}

bool Connection::answers(milliseconds timeout) {
  if (!alive()) return false;
  // An error reply is an answer too: WebDriver BiDi (Firefox) knows no Browser.getVersion.
  const auto version = call("Browser.getVersion", Json::object(), {}, timeout);
  return version.has_value() || version.error().kind == ErrorKind::Protocol;
}

bool Connection::alive() const {
  std::scoped_lock lock(state_->mutex);
  return state_->alive;
}

std::string Connection::closed_reason() const {
  std::scoped_lock lock(state_->mutex);
  return state_->closed_reason;
}

void Connection::close() {
  state_->mark_dead("the browser was closed");
  state_->transport->close();
  state_->transport->interrupt();
}

int Connection::process_id() const {
  return state_->transport->process_id();
}

// EventQueue ------------------------------------------------------------------------------------------------

struct EventQueue::Shared {
  std::mutex mutex;
  std::condition_variable arrived;
  std::deque<Event> events;
  bool connection_closed = false;
};

EventQueue::EventQueue(Connection& connection, Filter filter)
    : connection_(connection), shared_(std::make_shared<Shared>()) {
  subscription_ = connection_.subscribe([shared = shared_, filter = std::move(filter)](const Event& event) {
    const bool closing = event.method == "Connection.closed";
    if (!closing && !filter(event)) return;
    std::scoped_lock lock(shared->mutex);
    if (closing) {
      shared->connection_closed = true;
    } else {
      shared->events.push_back(event);
    }
    shared->arrived.notify_all();
  });
  // A connection that died before we subscribed never sends us Connection.closed.
  if (!connection_.alive()) shared_->connection_closed = true;
}

EventQueue::~EventQueue() {
  connection_.unsubscribe(subscription_);
}

Result<Event> EventQueue::wait(const std::function<bool(const Event&)>& predicate, milliseconds timeout) {
  std::unique_lock lock(shared_->mutex);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    for (auto it = shared_->events.begin(); it != shared_->events.end(); ++it) {
      if (predicate(*it)) {
        Event event = std::move(*it);
        shared_->events.erase(it);
        return event;
      }
    }
    if (shared_->connection_closed) return fail(ErrorKind::BrowserExited, connection_.closed_reason());
    if (shared_->arrived.wait_until(lock, deadline) == std::cv_status::timeout) {
      return fail(ErrorKind::Timeout, "no matching DevTools event within " + std::to_string(timeout.count()) + " ms");
    }
  }
}

bool EventQueue::contains(const std::function<bool(const Event&)>& predicate) {
  std::scoped_lock lock(shared_->mutex);
  return std::any_of(shared_->events.begin(), shared_->events.end(), predicate);
}

std::vector<Event> EventQueue::drain() {
  std::scoped_lock lock(shared_->mutex);
  std::vector<Event> all(std::make_move_iterator(shared_->events.begin()),
                         std::make_move_iterator(shared_->events.end()));
  shared_->events.clear();
  return all;
}

}  // namespace vimgpt::wire
