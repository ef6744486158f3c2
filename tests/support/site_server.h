// A real HTTP server on 127.0.0.1 for browser and end-to-end tests: serves fixture folders and the saved
// real pages, takes extra routes, and records every request it receives.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace vimgpt::test {

struct RecordedRequest {
  std::string method;
  std::string path;  // without the query
  std::string query;
  std::string body;
};

class SiteServer {
 public:
  using Routes = std::function<void(httplib::Server&)>;
  // Binds a free port on 127.0.0.1 and installs `routes`; connections are accepted from the moment it returns.
  explicit SiteServer(const Routes& routes = {});
  ~SiteServer();
  SiteServer(const SiteServer&) = delete;
  SiteServer& operator=(const SiteServer&) = delete;

  // Serves files of `dir` under `mount` (e.g. "/pages" → ../shared/pages).
  void mount(const std::string& mount, const std::string& dir);
  [[nodiscard]] int port() const { return port_; }
  // "http://127.0.0.1:PORT" + path
  [[nodiscard]] std::string url(std::string_view path = "/") const;
  [[nodiscard]] std::vector<RecordedRequest> requests() const;
  [[nodiscard]] int count(std::string_view method, std::string_view path) const;

 private:
  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<std::thread> thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<RecordedRequest> requests_;
};

// Routes of a site that remembers who signed in by a cookie, as real ones do: POST /login (from fixtures'
// login.html) sets who=EMAIL and redirects to /account, whose title is "Signed in as EMAIL" or "Not signed in".
void add_cookie_login(httplib::Server& server);

}  // namespace vimgpt::test
