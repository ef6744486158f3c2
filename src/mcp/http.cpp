// Streamable HTTP: one /mcp endpoint, a thread per connection (a handful of clients on loopback at most).
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <deque>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "common/text.h"
#include "mcp/mcp.h"

namespace vimgpt::mcp {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

bool is_initialize(const Json& message) {
  return message.is_object() && message.value("method", Json()) == "initialize";
}

bool has_request(const Json& message) {
  if (message.is_array()) {
    return std::any_of(message.begin(), message.end(), [](const Json& one) { return has_request(one); });
  }
  return message.is_object() && message.contains("method") && message.contains("id");
}

bool wants_progress(const Json& message) {
  return message.is_object() && message.contains("params") && message["params"].is_object() &&
         message["params"].contains("_meta") && message["params"]["_meta"].is_object() &&
         message["params"]["_meta"].contains("progressToken");
}

// Runs the server's work on one thread that lives as long as the server: a browser is tied to the thread that
// launched it (PR_SET_PDEATHSIG follows the thread), and a connection's thread ends with its connection.
class Worker {
 public:
  Worker() : thread_([this] { run(); }) {}
  ~Worker() {
    {
      std::scoped_lock lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  std::optional<Json> run_on_worker(const std::function<std::optional<Json>()>& work) {
    std::packaged_task<std::optional<Json>()> task(work);
    auto done = task.get_future();
    {
      std::scoped_lock lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
    return done.get();
  }

 private:
  void run() {
    for (;;) {
      std::packaged_task<std::optional<Json>()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<std::optional<Json>()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

using Clock = std::chrono::steady_clock;

// A session's server and the thread its calls run on. Members are destroyed last to first: the server (and its
// browser) before the worker's thread is joined.
struct Host {
  explicit Host(std::unique_ptr<Server> own, Server* shared = nullptr)
      : owned(std::move(own)), server(shared != nullptr ? *shared : *owned) {}
  Worker worker;
  std::unique_ptr<Server> owned;  // null: the shared server
  Server& server;
  // Under Shared::mutex.
  int running = 0;  // calls under way
  Clock::time_point last_used = Clock::now();
  bool ended = false;  // Server::end has run (or is queued): calls after it are refused
};

struct Shared {
  Shared(const MakeServer* make, std::shared_ptr<Host> shared, const HttpOptions& http)
      : make_server(make), shared_host(std::move(shared)), options(http) {}
  const MakeServer* make_server;  // null: every session is `shared_host`
  std::shared_ptr<Host> shared_host;
  const HttpOptions& options;
  int port = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::shared_ptr<Host>> sessions;
  int reserved = 0;  // sessions initializing, counted against max_sessions
  int begun = 0;     // sessions numbered so far
  Clock::time_point last_request = Clock::now();
  bool stopping = false;
  std::atomic<bool> idle_stop{false};

  // Forgets a session: the host to end (end_host, with the mutex released) when the session had one of its own,
  // told to stop a running browse at its next step. Mutex held.
  std::shared_ptr<Host> forget_locked(const std::string& id) {
    const auto found = sessions.find(id);
    if (found == sessions.end()) return nullptr;
    std::shared_ptr<Host> host = std::move(found->second);
    sessions.erase(found);
    changed.notify_all();
    if (!host->owned || host->ended) return nullptr;
    host->ended = true;
    host->server.interrupt();
    return host;
  }
};

// On the host's own thread, where its browser was launched: the recording finished, then the browser closed.
void end_host(Host& host) {
  host.worker.run_on_worker([&host]() -> std::optional<Json> {
    host.server.end();
    return std::nullopt;
  });
}

// Ends sessions idle past session_idle and stops the server idle past exit_idle.
void run_janitor(Shared& shared) {
  std::unique_lock lock(shared.mutex);
  while (!shared.stopping) {
    const auto now = Clock::now();
    auto next = now + std::chrono::hours(1);
    const auto idle = shared.options.session_idle;
    std::vector<std::shared_ptr<Host>> ending;
    if (idle.count() > 0) {
      std::vector<std::string> expired;
      for (const auto& [id, host] : shared.sessions) {
        if (host->running > 0) continue;
        if (now - host->last_used >= idle) {
          expired.push_back(id);
        } else {
          next = std::min(next, host->last_used + idle);
        }
      }
      for (const auto& id : expired) {
        if (auto host = shared.forget_locked(id)) ending.push_back(std::move(host));
      }
    }
    if (shared.options.exit_idle.count() > 0) {
      const bool busy = std::any_of(shared.sessions.begin(), shared.sessions.end(),
                                    [](const auto& entry) { return entry.second->running > 0; });
      if (!busy && now - shared.last_request >= shared.options.exit_idle) {
        shared.idle_stop = true;
      } else {
        next = std::min(next, (busy ? now : shared.last_request) + shared.options.exit_idle);
      }
    }
    if (!ending.empty()) {
      lock.unlock();
      for (const auto& host : ending) end_host(*host);
      ending.clear();
      lock.lock();
      continue;
    }
    shared.changed.wait_until(lock, next);
  }
}

class Connection {
 public:
  Connection(Shared& shared, tcp::socket& socket) : shared_(shared), socket_(socket) {}

  void serve() {
    beast::error_code error;
    beast::flat_buffer buffer;
    for (;;) {
      Request request;
      http::read(socket_, buffer, request, error);
      if (error) return;
      if (!respond(request)) return;
      if (!request.keep_alive()) return;
    }
  }

 private:
  Response reply(const Request& request, http::status status, std::string body = {},
                 std::string_view type = "application/json") {
    Response response{status, request.version()};
    response.set(http::field::server, "vimgpt");
    if (!body.empty()) response.set(http::field::content_type, beast::string_view(type.data(), type.size()));
    response.body() = std::move(body);
    response.keep_alive(request.keep_alive());
    response.prepare_payload();
    return response;
  }

  bool send(const Response& response) {
    beast::error_code error;
    http::write(socket_, response, error);
    return !error;
  }

  bool refuse(const Request& request, http::status status, const std::string& why,
              RpcError code = RpcError::InvalidRequest) {
    return send(reply(request, status, rpc_error(nullptr, code, why).dump()));
  }

  // The specification asks servers to check Origin against DNS rebinding: only this server's own address.
  [[nodiscard]] bool origin_allowed(const Request& request) const {
    const auto origin = request.find(http::field::origin);
    if (origin == request.end()) return true;  // not a browser
    const std::string_view given(origin->value().data(), origin->value().size());
    const std::string port = ":" + std::to_string(shared_.port);
    for (const std::string& host :
         {shared_.options.host, std::string("127.0.0.1"), std::string("localhost"), std::string("[::1]")}) {
      for (const std::string_view scheme : {"http://", "https://"}) {
        if (given.size() == scheme.size() + host.size() + port.size() && given.starts_with(scheme) &&
            given.substr(scheme.size(), host.size()) == host && given.ends_with(port)) {
          return true;
        }
      }
    }
    return false;
  }

  bool respond(const Request& request) {
    const std::string_view target(request.target().data(), request.target().size());
    if (target.substr(0, target.find('?')) != "/mcp") return refuse(request, http::status::not_found, "use /mcp");
    if (!origin_allowed(request)) return refuse(request, http::status::forbidden, "this Origin may not use the server");
    if (!shared_.options.token.empty() && request[http::field::authorization] != "Bearer " + shared_.options.token) {
      auto response = reply(request, http::status::unauthorized,
                            Json{{"error", "a bearer token is required (Authorization: Bearer TOKEN)"}}.dump());
      response.set(http::field::www_authenticate, "Bearer");
      return send(response);
    }
    const std::string version(request["MCP-Protocol-Version"]);
    if (!version.empty() &&
        std::find(std::begin(kProtocolVersions), std::end(kProtocolVersions), version) == std::end(kProtocolVersions)) {
      return refuse(request, http::status::bad_request, "unsupported MCP-Protocol-Version " + version);
    }
    const std::string session(request["Mcp-Session-Id"]);
    if (request.method() == http::verb::post) return post(request, session);
    if (!host_of(session)) return refuse(request, http::status::bad_request, "a known Mcp-Session-Id header is needed");
    if (request.method() == http::verb::get) return events(request, session);
    if (request.method() == http::verb::delete_) {  // answered once the session's browser is closed
      std::shared_ptr<Host> ended;
      {
        std::scoped_lock lock(shared_.mutex);
        ended = shared_.forget_locked(session);
      }
      if (ended) end_host(*ended);
      return send(reply(request, http::status::ok));
    }
    return refuse(request, http::status::method_not_allowed, "use POST, GET or DELETE");
  }

  // The host of a known session, or null.
  std::shared_ptr<Host> host_of(const std::string& session) {
    std::scoped_lock lock(shared_.mutex);
    const auto found = shared_.sessions.find(session);
    return found == shared_.sessions.end() ? nullptr : found->second;
  }

  // A host for a new session, its place counted against max_sessions; null when every place is taken.
  std::shared_ptr<Host> reserve_host() {
    int number = 0;
    {
      std::scoped_lock lock(shared_.mutex);
      const int max = shared_.options.max_sessions;
      if (max > 0 && static_cast<int>(shared_.sessions.size()) + shared_.reserved >= max) return nullptr;
      ++shared_.reserved;
      number = ++shared_.begun;
    }
    if (shared_.make_server == nullptr) return shared_.shared_host;
    return std::make_shared<Host>((*shared_.make_server)(number));
  }

  // Runs a message on the session's own thread, one call at a time; an ended session's are refused.
  std::optional<Json> run(Host& host, const Json& message, const Notify& notify = {}) {
    {
      std::scoped_lock lock(shared_.mutex);
      ++host.running;
      shared_.last_request = Clock::now();
    }
    auto answer = host.worker.run_on_worker([&]() -> std::optional<Json> {
      bool ended = false;
      {
        std::scoped_lock lock(shared_.mutex);
        ended = host.ended;
      }
      if (ended) {
        return rpc_error(message.is_object() ? message.value("id", Json()) : Json(), RpcError::InvalidRequest,
                         "this session has ended: initialize again");
      }
      return host.server.handle(message, notify);
    });
    std::scoped_lock lock(shared_.mutex);
    --host.running;
    host.last_used = shared_.last_request = Clock::now();
    shared_.changed.notify_all();
    return answer;
  }

  bool post(const Request& request, const std::string& session) {
    Json message = Json::parse(request.body(), nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) {
      return refuse(request, http::status::bad_request, "not JSON", RpcError::ParseError);
    }
    if (!message.is_object() && !message.is_array()) {
      return refuse(request, http::status::bad_request, "a message is a JSON-RPC object (or a batch of them)");
    }
    if (is_initialize(message)) return initialize(request, message);
    if (session.empty()) {
      return refuse(request, http::status::bad_request, "initialize first: other messages need its Mcp-Session-Id");
    }
    const auto host = host_of(session);
    if (!host) return refuse(request, http::status::not_found, "this session has ended: initialize again");
    if (!has_request(message)) {  // notifications and replies are accepted, never answered; a cancellation at once
      host->server.handle(message);
      return send(reply(request, http::status::accepted));
    }
    const std::string accept(request[http::field::accept]);
    if (wants_progress(message) && accept.find("text/event-stream") != std::string::npos) {
      return stream_reply(request, *host, message);
    }
    return send(json_reply(request, run(*host, message)));
  }

  Response json_reply(const Request& request, const std::optional<Json>& answer) {
    return reply(request, http::status::ok, answer ? answer->dump(-1, ' ', false, Json::error_handler_t::replace) : "");
  }

  // A new session: its own server (its browser opened on its first tool call), known once initialize succeeds.
  bool initialize(const Request& request, const Json& message) {
    auto host = reserve_host();
    if (!host) {
      const std::string max = std::to_string(shared_.options.max_sessions);
      return send(json_reply(
          request, rpc_error(message.value("id", Json()), RpcError::TooManySessions,
                             "this server already has " + max + " sessions, its most at once (--max-sessions " + max +
                                 "): end one (DELETE /mcp with its Mcp-Session-Id) or wait for one to go idle")));
    }
    auto answer = run(*host, message);
    auto response = json_reply(request, answer);
    const bool begun = answer && !answer->contains("error");
    {
      std::scoped_lock lock(shared_.mutex);
      --shared_.reserved;
      if (begun) {
        const std::string id = random_hex(4);
        shared_.sessions.emplace(id, host);
        shared_.changed.notify_all();  // the janitor times the new session's idle end from now
        response.set("Mcp-Session-Id", id);
      } else if (host->owned) {
        host->ended = true;
      }
    }
    if (!begun && host->owned) end_host(*host);
    return send(response);
  }

  bool write_chunk(const std::string& data) {
    beast::error_code error;
    net::write(socket_, http::make_chunk(net::buffer(data)), error);
    return !error;
  }

  bool start_stream(const Request& request) {
    http::response<http::empty_body> head{http::status::ok, request.version()};
    head.set(http::field::content_type, "text/event-stream");
    head.set(http::field::cache_control, "no-cache");
    head.chunked(true);
    head.keep_alive(request.keep_alive());
    http::response_serializer<http::empty_body> serializer{head};
    beast::error_code error;
    http::write_header(socket_, serializer, error);
    return !error;
  }

  bool end_stream() {
    beast::error_code error;
    net::write(socket_, http::make_chunk_last(), error);
    return !error;
  }

  // A request with a progress token: its notifications, then its reply, as one event stream.
  bool stream_reply(const Request& request, Host& host, const Json& message) {
    if (!start_stream(request)) return false;
    bool open = true;
    auto event = [&](const Json& payload) {
      if (open)
        open = write_chunk("event: message\ndata: " + payload.dump(-1, ' ', false, Json::error_handler_t::replace) +
                           "\n\n");
    };
    auto answer = run(host, message, event);
    if (answer) event(*answer);
    return open && end_stream();
  }

  // The server's own stream: it sends no requests of its own, so this only keeps the line open (comments
  // every 15 s) until the session ends or the server stops.
  bool events(const Request& request, const std::string& session) {
    const std::string accept(request[http::field::accept]);
    if (accept.find("text/event-stream") == std::string::npos) {
      return refuse(request, http::status::method_not_allowed,
                    "GET /mcp is the event stream: Accept text/event-stream");
    }
    if (!start_stream(request)) return false;
    for (;;) {
      {
        std::unique_lock lock(shared_.mutex);
        shared_.changed.wait_for(lock, std::chrono::seconds(15),
                                 [&] { return shared_.stopping || shared_.sessions.count(session) == 0; });
        if (shared_.stopping || shared_.sessions.count(session) == 0) break;
      }
      if (!write_chunk(": keep-alive\n\n")) return false;
    }
    end_stream();
    return false;
  }

  Shared& shared_;
  tcp::socket& socket_;  // shut down from the serving thread when the server stops
};

}  // namespace

namespace {

Status serve(Shared& shared) {
  const HttpOptions& options = shared.options;
  net::io_context io;
  beast::error_code error;
  const auto address = net::ip::make_address(options.host == "localhost" ? "127.0.0.1" : options.host, error);
  if (error) return fail(ErrorKind::InvalidArgument, "--http: \"" + options.host + "\" is not an IP address");
  tcp::acceptor acceptor(io);
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(net::socket_base::max_listen_connections, error);
  if (error) {
    return fail(ErrorKind::Io,
                "cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " + error.message());
  }
  shared.port = acceptor.local_endpoint().port();
  if (options.ready) options.ready(shared.port);
  std::thread janitor([&shared] { run_janitor(shared); });

  // A thread per connection; those whose connection has ended are joined as the next one is accepted, so a
  // long-lived server (a CLI session: a connection per verb) does not pile them up.
  struct Served {
    std::thread thread;
    std::shared_ptr<tcp::socket> socket;
    std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
  };
  std::mutex sockets_mutex;  // a socket is shut down by its own thread, or by this one when serving stops
  std::list<Served> served;
  std::function<void()> accept_next = [&] {
    auto socket = std::make_shared<tcp::socket>(io);
    acceptor.async_accept(*socket, [&, socket](const beast::error_code& accepted) {
      if (accepted) {
        if (acceptor.is_open()) accept_next();
        return;
      }
      served.remove_if([](Served& one) {
        if (!one.done->load()) return false;
        one.thread.join();
        return true;
      });
      Served& one = served.emplace_back();
      one.socket = socket;
      one.thread = std::thread([&shared, &sockets_mutex, socket, done = one.done] {
        Connection(shared, *socket).serve();
        // Closed once served: a client would otherwise send its next request on a line nobody reads (an event
        // stream that ended with its session looks to the client like a reply on a live keep-alive line).
        std::scoped_lock lock(sockets_mutex);
        beast::error_code ignored;
        socket->shutdown(tcp::socket::shutdown_both, ignored);
        socket->close(ignored);
        *done = true;
      });
      accept_next();
    });
  };
  accept_next();
  // Accepting runs on this thread; a stop request is seen within a fifth of a second.
  while ((options.stop == nullptr || !options.stop->load()) && !shared.idle_stop) {
    io.run_for(std::chrono::milliseconds(200));
  }

  {
    std::scoped_lock lock(shared.mutex);
    shared.stopping = true;
    for (auto& [id, host] : shared.sessions) host->server.interrupt();  // a running browse stops at its next step
    shared.changed.notify_all();
  }
  acceptor.close(error);
  {
    std::scoped_lock lock(sockets_mutex);
    for (auto& one : served) one.socket->shutdown(tcp::socket::shutdown_both, error);
  }
  for (auto& one : served) one.thread.join();
  janitor.join();
  // Every session still open ends as if DELETEd, the shared one last.
  std::vector<std::shared_ptr<Host>> left;
  for (auto& [id, host] : shared.sessions) {
    if (host->owned) left.push_back(host);
  }
  shared.sessions.clear();
  if (shared.shared_host) left.push_back(std::move(shared.shared_host));
  for (const auto& host : left) end_host(*host);
  return ok();
}

}  // namespace

Status serve_http(const MakeServer& make_server, const HttpOptions& options) {
  Shared shared(&make_server, nullptr, options);
  return serve(shared);
}

Status serve_http(Server& server, const HttpOptions& options) {
  Shared shared(nullptr, std::make_shared<Host>(nullptr, &server), options);
  return serve(shared);
}

}  // namespace vimgpt::mcp
