// The live view's server: GET /?token=T is the page, GET /ws?token=T its WebSocket; nothing else. One thread runs
// every connection (a handful of pages at most), so the watchers need no lock of their own.
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "common/text.h"
#include "live/session.h"

namespace vimgpt::live {
namespace detail {
std::string_view live_page();  // src/live/page/live.html, embedded at build time
}  // namespace detail

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using Request = http::request<http::string_body>;

// A request line and headers are small; the page sends only short JSON.
constexpr std::uint32_t kMaxRequestBytes = 16 * 1024;
constexpr std::size_t kMaxMessageBytes = std::size_t{64} * 1024;
constexpr std::chrono::seconds kRequestTimeout{30};

// Equal in time that does not depend on where they differ: the token is the page's only lock.
bool same_secret(std::string_view given, std::string_view expected) {
  if (given.size() != expected.size()) return false;
  unsigned char differ = 0;
  for (std::size_t i = 0; i < given.size(); ++i) differ |= static_cast<unsigned char>(given[i] ^ expected[i]);
  return differ == 0;
}

std::string_view path_of(std::string_view target) {
  return target.substr(0, target.find('?'));
}

std::string query_value(std::string_view target, std::string_view name) {
  const auto question = target.find('?');
  if (question == std::string_view::npos) return {};
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.size() > name.size() && pair.substr(0, name.size()) == name && pair[name.size()] == '=') {
      return std::string(pair.substr(name.size() + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

// "127.0.0.1" or "[::1]": the host as a URL writes it.
std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, std::shared_ptr<Server::Hub> hub)
      : stream_(std::move(socket)), hub_(std::move(hub)) {}

  void start() { read_next(); }

 private:
  void read_next() {
    parser_.emplace();
    parser_->header_limit(kMaxRequestBytes);
    parser_->body_limit(kMaxRequestBytes);
    stream_.expires_after(kRequestTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code error, std::size_t) {
      if (error) return self->close();
      self->respond(self->parser_->release());
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  [[nodiscard]] bool token_ok(const Request& request) const {
    const std::string_view target(request.target().data(), request.target().size());
    return same_secret(query_value(target, "token"), hub_->options.token);
  }

  // A page's own requests carry its Origin: it must be this server as the page reached it (another site's page
  // could otherwise drive the tab through a person's browser, were the token ever to leak).
  [[nodiscard]] bool origin_ok(const Request& request) const {
    const auto origin = request.find(http::field::origin);
    if (origin == request.end()) return true;  // not a browser: the token is the lock
    const std::string host(request[http::field::host]);
    if (std::string_view(origin->value().data(), origin->value().size()) != "http://" + host) return false;
    const std::string bound = hub_->options.host;
    if (bound == "0.0.0.0" || bound == "::") return true;  // any of this machine's addresses
    const std::string port = ":" + std::to_string(hub_->port);
    for (const std::string& name :
         {url_host(bound), std::string("127.0.0.1"), std::string("localhost"), std::string("[::1]")}) {
      if (host == name + port) return is_loopback(bound) || name == url_host(bound);
    }
    return false;
  }

  void respond(const Request& request) {
    const std::string_view target(request.target().data(), request.target().size());
    const std::string_view path = path_of(target);
    if (request.method() != http::verb::get) return reply(request, http::status::method_not_allowed, "use GET\n");
    if (path != "/" && path != "/ws") return reply(request, http::status::not_found, "not found\n");
    if (!token_ok(request)) {
      return reply(request, http::status::unauthorized,
                   "open the address vimgpt printed when it started, with its ?token=...\n");
    }
    if (!origin_ok(request)) return reply(request, http::status::forbidden, "this Origin may not use the live view\n");
    if (path == "/ws") {
      if (!websocket::is_upgrade(request)) {
        return reply(request, http::status::bad_request, "/ws is the page's WebSocket\n");
      }
      stream_.expires_never();
      std::make_shared<WatcherSession>(stream_.release_socket(), hub_)->start(request);
      return;
    }
    auto response = std::make_shared<http::response<http::string_body>>(http::status::ok, request.version());
    response->set(http::field::content_type, "text/html; charset=utf-8");
    response->set(http::field::cache_control, "no-store");
    // The token is in the address: it never leaves in a Referer, and no other site may frame the takeover.
    response->set("Referrer-Policy", "no-referrer");
    response->set("X-Frame-Options", "DENY");
    response->set("Content-Security-Policy",
                  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src blob:; "
                  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    response->body() = std::string(detail::live_page());
    write(request, response);
  }

  void reply(const Request& request, http::status status, std::string body) {
    auto response = std::make_shared<http::response<http::string_body>>(status, request.version());
    response->set(http::field::content_type, "text/plain; charset=utf-8");
    response->body() = std::move(body);
    write(request, response);
  }

  void write(const Request& request, const std::shared_ptr<http::response<http::string_body>>& response) {
    response->set(http::field::server, "vimgpt");
    response->keep_alive(request.keep_alive());
    response->prepare_payload();
    http::async_write(stream_, *response, [self = shared_from_this(), response](beast::error_code error, std::size_t) {
      if (error || !response->keep_alive()) return self->close();
      self->read_next();
    });
  }

  beast::tcp_stream stream_;
  std::shared_ptr<Server::Hub> hub_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
};

void accept_next(const std::shared_ptr<Server::Hub>& hub) {
  hub->acceptor->async_accept([hub](beast::error_code error, tcp::socket socket) {
    if (error) {
      if (hub->acceptor->is_open()) accept_next(hub);
      return;
    }
    std::make_shared<HttpSession>(std::move(socket), hub)->start();
    accept_next(hub);
  });
}

}  // namespace

// ---- a page's WebSocket ---------------------------------------------------------------------------------------

WatcherSession::WatcherSession(tcp::socket socket, std::shared_ptr<Server::Hub> hub)
    : socket_(std::move(socket)), hub_(std::move(hub)) {}

void WatcherSession::start(const Request& request) {
  socket_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  socket_.read_message_max(kMaxMessageBytes);
  socket_.async_accept(request, [self = shared_from_this()](beast::error_code error) {
    if (error) return;
    self->hub_->attach(self);
    self->read_next();
  });
}

void WatcherSession::read_next() {
  socket_.async_read(buffer_, [self = shared_from_this()](beast::error_code error, std::size_t) {
    if (error) return self->hub_->detach(self);
    const std::string text = beast::buffers_to_string(self->buffer_.data());
    self->buffer_.consume(self->buffer_.size());
    const Json message = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (auto refused = message.is_discarded() ? std::optional<std::string>("not JSON") : self->hub_->command(message)) {
      self->reply_error(*refused);
    }
    self->read_next();
  });
}

void WatcherSession::reply_error(const std::string& message) {
  send(text_message(Json{{"type", "error"}, {"message", message}}));
}

void WatcherSession::send(const Outgoing& message) {
  if (message.live_run != 0) {
    // The tab's newest frame replaces one of the same run still waiting: a slow page sees the present, late.
    for (std::size_t i = writing_ ? 1 : 0; i < queue_.size(); ++i) {
      if (queue_[i].live_run == message.live_run) {
        queue_[i] = message;
        return;
      }
    }
    if (queue_.size() >= kMaxQueued) return;
  }
  queue_.push_back(message);
  if (!writing_) write_next();
}

void WatcherSession::write_next() {
  if (queue_.empty()) {
    writing_ = false;
    if (finishing_) close_now();
    return;
  }
  writing_ = true;
  const Outgoing& next = queue_.front();
  socket_.binary(next.binary);
  socket_.async_write(net::buffer(*next.data), [self = shared_from_this()](beast::error_code error, std::size_t) {
    self->queue_.pop_front();
    if (error) {
      self->queue_.clear();
      self->writing_ = false;
      return self->hub_->detach(self);
    }
    self->write_next();
  });
}

void WatcherSession::finish() {
  finishing_ = true;
  if (!writing_) close_now();
}

void WatcherSession::close_now() {
  // The read under way ends with the page's answer to the close, and detaches this session.
  socket_.async_close(websocket::close_reason(websocket::close_code::going_away, "vimgpt has stopped"),
                      [self = shared_from_this()](beast::error_code) {});
}

// ---- the server ----------------------------------------------------------------------------------------------

bool is_loopback(std::string_view host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

Result<Options> parse_address(std::string_view text) {
  Options options;
  const auto colon = text.rfind(':');
  std::string_view host = colon == std::string_view::npos ? std::string_view() : text.substr(0, colon);
  const std::string_view port = colon == std::string_view::npos ? text : text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (!host.empty()) options.host = host == "localhost" ? "127.0.0.1" : std::string(host);
  const auto number = parse_digits(port, 5);
  if (!number || *number > 65535) {
    return fail(
        ErrorKind::InvalidArgument,
        "--live takes HOST:PORT (e.g. 127.0.0.1:8765, or :0 for any free port), not \"" + std::string(text) + "\"");
  }
  options.port = *number;
  return options;
}

Result<std::unique_ptr<Server>> Server::start(const Options& options) {
  auto hub = std::make_shared<Hub>();
  hub->options = options;
  if (hub->options.token.empty()) hub->options.token = random_hex(4);
  beast::error_code error;
  const auto address = net::ip::make_address(options.host, error);
  if (error) return fail(ErrorKind::InvalidArgument, "--live: \"" + options.host + "\" is not an IP address");
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  auto& acceptor = *hub->acceptor;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(net::socket_base::max_listen_connections, error);
  if (error) {
    return fail(ErrorKind::Io, "--live: cannot listen on " + url_host(options.host) + ":" +
                                   std::to_string(options.port) + ": " + error.message());
  }
  hub->port = acceptor.local_endpoint().port();
  accept_next(hub);
  hub->thread = std::thread([io = hub->io.get()] {
    auto work = net::make_work_guard(*io);
    io->run();
  });
  return std::unique_ptr<Server>(new Server(std::move(hub)));
}

Server::Server(std::shared_ptr<Hub> hub) : hub_(std::move(hub)) {}

// How long the server waits, when it stops, for its pages to take their last messages and close.
constexpr std::chrono::seconds kFarewell{2};

Server::~Server() {
  net::post(*hub_->io, [hub = hub_.get()] {
    beast::error_code ignored;
    hub->acceptor->close(ignored);
    for (const auto& watcher : hub->watchers) watcher->finish();
  });
  {
    std::unique_lock lock(hub_->mutex);
    hub_->watchers_changed.wait_for(lock, kFarewell, [&] { return hub_->watcher_count == 0; });
  }
  hub_->io->stop();
  hub_->thread.join();
  // The connections' handlers hold the hub: they go with the io_context, the acceptor before it.
  hub_->watchers.clear();
  hub_->acceptor.reset();
  std::unique_ptr<net::io_context> io;
  {
    std::scoped_lock lock(hub_->io_mutex);
    io = std::move(hub_->io);
  }
  io.reset();
  std::scoped_lock lock(hub_->mutex);
  for (auto& [id, run] : hub_->runs) {
    if (run->tab != nullptr) run->tab->stop_screencast();
  }
}

std::string Server::url() const {
  const std::string& host = hub_->options.host;
  const std::string shown = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host;
  return "http://" + url_host(shown) + ":" + std::to_string(hub_->port) + "/?token=" + hub_->options.token;
}

int Server::port() const {
  return hub_->port;
}

int Server::watchers() const {
  return hub_->watcher_count.load();
}

bool Server::wait_for_watchers(int count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(hub_->mutex);
  return hub_->watchers_changed.wait_for(lock, timeout, [&] { return hub_->watcher_count == count; });
}

std::unique_ptr<Watch> Server::watch(std::string title, browser::Tab& tab, const std::atomic<bool>* interrupted) {
  std::scoped_lock lock(hub_->mutex);
  const int id = hub_->next_id++;
  auto run = std::make_unique<RunState>();
  run->id = id;
  run->title = std::move(title);
  run->tab = &tab;
  auto& placed = *(hub_->runs[id] = std::move(run));
  if (hub_->watcher_count > 0) hub_->start_stream(placed);
  hub_->announce(placed);
  return std::unique_ptr<Watch>(new Watch(hub_, id, tab, interrupted));
}

}  // namespace vimgpt::live
