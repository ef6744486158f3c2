// Streamable HTTP: one /mcp endpoint, a thread per connection (a handful of clients on loopback at most).
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "mcp/mcp.h"

namespace vimgpt::mcp {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

std::string new_session_id() {
  std::random_device random;
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", random());
    id += part;
  }
  return id;
}

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

struct Shared {
  Server& server;
  const HttpOptions& options;
  int port = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::set<std::string> sessions;
  bool stopping = false;
  Worker worker;
};

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
    if (!known(session)) return refuse(request, http::status::bad_request, "a known Mcp-Session-Id header is needed");
    if (request.method() == http::verb::get) return events(request, session);
    if (request.method() == http::verb::delete_) {
      std::scoped_lock lock(shared_.mutex);
      shared_.sessions.erase(session);
      shared_.changed.notify_all();
      return send(reply(request, http::status::ok));
    }
    return refuse(request, http::status::method_not_allowed, "use POST, GET or DELETE");
  }

  [[nodiscard]] bool known(const std::string& session) const {
    std::scoped_lock lock(shared_.mutex);
    return shared_.sessions.count(session) > 0;
  }

  bool post(const Request& request, const std::string& session) {
    Json message = Json::parse(request.body(), nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) {
      return refuse(request, http::status::bad_request, "not JSON", RpcError::ParseError);
    }
    if (!message.is_object() && !message.is_array()) {
      return refuse(request, http::status::bad_request, "a message is a JSON-RPC object (or a batch of them)");
    }
    std::string new_session;
    if (is_initialize(message)) {
      new_session = new_session_id();
    } else if (session.empty()) {
      return refuse(request, http::status::bad_request, "initialize first: other messages need its Mcp-Session-Id");
    } else if (!known(session)) {
      return refuse(request, http::status::not_found, "this session has ended: initialize again");
    }
    if (!has_request(message)) {  // notifications and replies are accepted, never answered; a cancellation at once
      server().handle(message);
      return send(reply(request, http::status::accepted));
    }
    const std::string accept(request[http::field::accept]);
    if (wants_progress(message) && accept.find("text/event-stream") != std::string::npos) {
      return stream_reply(request, message);
    }
    auto answer = shared_.worker.run_on_worker([&] { return server().handle(message); });
    auto response =
        reply(request, http::status::ok, answer ? answer->dump(-1, ' ', false, Json::error_handler_t::replace) : "");
    if (!new_session.empty() && answer && !answer->contains("error")) {
      std::scoped_lock lock(shared_.mutex);
      shared_.sessions.insert(new_session);
      response.set("Mcp-Session-Id", new_session);
    }
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
  bool stream_reply(const Request& request, const Json& message) {
    if (!start_stream(request)) return false;
    bool open = true;
    auto event = [&](const Json& payload) {
      if (open)
        open = write_chunk("event: message\ndata: " + payload.dump(-1, ' ', false, Json::error_handler_t::replace) +
                           "\n\n");
    };
    auto answer = shared_.worker.run_on_worker([&] { return server().handle(message, event); });
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

  Server& server() { return shared_.server; }

  Shared& shared_;
  tcp::socket& socket_;  // shut down from the serving thread when the server stops
};

}  // namespace

Status serve_http(Server& server, const HttpOptions& options) {
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
  Shared shared{server, options, acceptor.local_endpoint().port(), {}, {}, {}, false, {}};
  if (options.ready) options.ready(shared.port);

  std::mutex sockets_mutex;
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  std::vector<std::thread> threads;
  std::function<void()> accept_next = [&] {
    auto socket = std::make_shared<tcp::socket>(io);
    acceptor.async_accept(*socket, [&, socket](const beast::error_code& accepted) {
      if (accepted) {
        if (acceptor.is_open()) accept_next();
        return;
      }
      {
        std::scoped_lock lock(sockets_mutex);
        sockets.push_back(socket);
      }
      threads.emplace_back([&shared, socket] { Connection(shared, *socket).serve(); });
      accept_next();
    });
  };
  accept_next();
  // Accepting runs on this thread; a stop request is seen within a fifth of a second.
  while (options.stop == nullptr || !options.stop->load()) io.run_for(std::chrono::milliseconds(200));

  {
    std::scoped_lock lock(shared.mutex);
    shared.stopping = true;
    shared.changed.notify_all();
  }
  acceptor.close(error);
  {
    std::scoped_lock lock(sockets_mutex);
    for (auto& socket : sockets) socket->shutdown(tcp::socket::shutdown_both, error);
  }
  for (auto& thread : threads) thread.join();
  // On the worker, which ran every tool call: the browser was launched there and ends with it.
  shared.worker.run_on_worker([&server]() -> std::optional<Json> {
    server.end();
    return std::nullopt;
  });
  return ok();
}

}  // namespace vimgpt::mcp
