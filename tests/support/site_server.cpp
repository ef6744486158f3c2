#include "support/site_server.h"

#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace vimgpt::test {

SiteServer::SiteServer(const Routes& routes) : server_(std::make_unique<httplib::Server>()) {
  server_->set_logger([this](const httplib::Request& request, const httplib::Response&) {
    std::scoped_lock lock(mutex_);
    std::string query;
    for (const auto& [key, value] : request.params) query += (query.empty() ? "" : "&") + key + "=" + value;
    requests_.push_back({request.method, request.path, query, request.body});
  });
  if (routes) routes(*server_);
  // A browser that outlives the server (one the test process shares: support/shared_browser.h) keeps its
  // connections open, and httplib 0.11's stop() waits out each one's keep-alive timeout (5 s) before it returns: there
  // every response closes its connection instead.
  if (const char* shared = std::getenv("VIMGPT_TEST_SHARED_BROWSER");
      shared != nullptr && std::string_view(shared) == "1")
    server_->set_keep_alive_max_count(1);
  // As the fake model server: headers and body go out in separate writes, and without NODELAY a page on a kept-alive
  // connection waited for the browser's delayed ACK, 40 ms a request (43 ms against 1 ms for the first on it).
  server_->set_tcp_nodelay(true);
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("site server: cannot bind 127.0.0.1");
  thread_ = std::make_unique<std::thread>([this] { server_->listen_after_bind(); });
  // bind_to_any_port already listens: connections queue in the backlog until the thread accepts them.
}

SiteServer::~SiteServer() {
  // httplib's stop() does nothing until listen_after_bind() has begun, which would then listen for good: a server that
  // ends before its thread got going (no request ever came) must wait for it first.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!server_->is_running() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  server_->stop();
  thread_->join();
}

void SiteServer::mount(const std::string& mount, const std::string& dir) {
  if (!server_->set_mount_point(mount, dir)) throw std::runtime_error("site server: no such folder " + dir);
}

std::string SiteServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

std::vector<RecordedRequest> SiteServer::requests() const {
  std::scoped_lock lock(mutex_);
  return requests_;
}

int SiteServer::count(std::string_view method, std::string_view path) const {
  std::scoped_lock lock(mutex_);
  int n = 0;
  for (const auto& request : requests_) n += (request.method == method && request.path == path) ? 1 : 0;
  return n;
}

void add_cookie_login(httplib::Server& server) {
  server.Post("/login", [](const httplib::Request& request, httplib::Response& response) {
    response.set_header("Set-Cookie", "who=" + request.get_param_value("email") + "; Path=/");
    response.set_redirect("/account", 303);
  });
  server.Get("/account", [](const httplib::Request& request, httplib::Response& response) {
    static const std::regex kWho("(?:^|; )who=([^;]+)");
    std::smatch who;
    const std::string cookie = request.get_header_value("Cookie");
    const std::string title = std::regex_search(cookie, who, kWho) ? "Signed in as " + who[1].str() : "Not signed in";
    response.set_content("<!doctype html><title>" + title + "</title><h1>" + title + "</h1>", "text/html");
  });
}

}  // namespace vimgpt::test
