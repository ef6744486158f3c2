#include "support/gecko_driver.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

namespace vimgpt::test {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

constexpr const char* kFirefox = "/usr/lib/firefox-esr/firefox-esr";

// A WebDriver error body (https://w3c.github.io/webdriver/#errors).
std::string error_body(const std::string& error, const std::string& message) {
  return Json{{"value", {{"error", error}, {"message", message}, {"stacktrace", ""}}}}.dump();
}

bool write_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::write(fd, data.data() + sent, data.size() - sent);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// One Marionette packet: "LENGTH:JSON".
std::optional<Json> read_packet(int fd) {
  std::string length;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != ':') length += c;
  if (c != ':' || length.empty()) return std::nullopt;
  std::string body(std::stoul(length), '\0');
  std::size_t got = 0;
  while (got < body.size()) {
    const ssize_t n = ::read(fd, body.data() + got, body.size() - got);
    if (n <= 0) return std::nullopt;
    got += static_cast<std::size_t>(n);
  }
  return Json::parse(body, nullptr, false);
}

}  // namespace

// One Firefox and its Marionette connection.
struct GeckoDriver::Session {
  std::string id;
  pid_t pid = 0;
  fs::path profile;
  int marionette = -1;
  int next_command = 1;
  std::thread output;  // drains Firefox's stdout and stderr until it exits
  std::mutex mutex;
  std::condition_variable changed;
  int marionette_port = 0;  // from Marionette's "Listening on port N"
  bool output_ended = false;

  // [0, id, name, params] -> [1, id, error, result]: the result, or the error object.
  std::pair<Json, Json> command(const std::string& name, const Json& params) {
    const std::string packet = Json::array({0, next_command++, name, params}).dump();
    if (!write_all(marionette, std::to_string(packet.size()) + ":" + packet)) return {Json(), "Marionette is gone"};
    auto reply = read_packet(marionette);
    if (!reply || !reply->is_array() || reply->size() != 4) return {Json(), "Marionette gave no reply"};
    return {(*reply)[3], (*reply)[2]};
  }

  void end() {
    if (marionette >= 0) {
      (void)command("WebDriver:DeleteSession", Json::object());
      ::close(marionette);
      marionette = -1;
    }
    if (pid > 0) {
      ::kill(-pid, SIGTERM);  // Firefox leads its own process group: its content processes go too
      ::waitpid(pid, nullptr, 0);
      ::kill(-pid, SIGKILL);
      pid = 0;
    }
    if (output.joinable()) output.join();
    std::error_code ignored;
    fs::remove_all(profile, ignored);
  }
};

GeckoDriver::GeckoDriver() {
  server_ = std::make_unique<SiteServer>([this](httplib::Server& s) {
    s.Get("/status", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(Json{{"value", {{"ready", true}, {"message", ""}}}}.dump(), "application/json");
    });
    s.Post("/session", [this](const httplib::Request& req, httplib::Response& res) {
      std::string reply;
      int status = 200;
      new_session(req.body, reply, status);
      res.status = status;
      res.set_content(reply, "application/json");
    });
    s.Delete(R"(/session/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      delete_session(req.matches[1]);
      res.set_content(R"({"value":null})", "application/json");
    });
  });
}

GeckoDriver::~GeckoDriver() {
  server_.reset();
  for (auto& session : open_) session->end();
}

std::string GeckoDriver::url() const {
  return "webdriver+http://127.0.0.1:" + std::to_string(server_->port());
}

std::vector<GeckoDriver::SessionRecord> GeckoDriver::sessions() const {
  std::scoped_lock lock(mutex_);
  return records_;
}

void GeckoDriver::new_session(const std::string& body, std::string& reply, int& status) {
  const Json request = Json::parse(body, nullptr, false);
  // W3C capabilities processing, as far as one server needs it: alwaysMatch merged with the first of firstMatch (a
  // client sends either; Selenium Grid's relay passes on what it matched).
  Json asked;
  if (request.is_object() && request.contains("capabilities") && request["capabilities"].is_object()) {
    const Json& capabilities = request["capabilities"];
    asked = capabilities.value("alwaysMatch", Json::object());
    const Json first = capabilities.value("firstMatch", Json::array());
    if (asked.is_object() && first.is_array() && !first.empty() && first[0].is_object()) asked.update(first[0]);
  }
  std::size_t record = 0;
  {
    std::scoped_lock lock(mutex_);
    record = records_.size();
    records_.push_back({asked, "", 0, false});
  }
  status = 500;
  if (!asked.is_object()) {
    status = 400;
    reply = error_body("invalid argument", "no capabilities object");
    return;
  }
  if (asked.value("browserName", "firefox") != "firefox") {
    reply = error_body("session not created", "this server starts Firefox, not " + asked["browserName"].dump());
    return;
  }
  const Json options = asked.value("moz:firefoxOptions", Json::object());
  asked.erase("moz:firefoxOptions");  // geckodriver's own: Marionette takes the rest

  auto session = std::make_unique<Session>();
  char folder[] = "/tmp/vimgpt-geckodriver-XXXXXX";
  if (::mkdtemp(folder) == nullptr) {
    reply = error_body("session not created", "cannot make a profile folder");
    return;
  }
  session->profile = folder;
  {
    std::ofstream prefs(session->profile / "user.js");
    const Json given = options.value("prefs", Json::object());
    for (const auto& pref : given.items())
      prefs << "user_pref(" << Json(pref.key()).dump() << ", " << pref.value().dump() << ");\n";
    prefs << "user_pref(\"marionette.port\", 0);\n";  // Marionette says which port it took
  }
  std::vector<std::string> args = {options.value("binary", kFirefox), "--marionette", "--no-remote", "--profile",
                                   session->profile.string()};
  // As geckodriver: Firefox's WebDriver BiDi only when the session asks for its socket (Firefox then refuses a
  // session that does not).
  if (asked.value("webSocketUrl", false)) args.emplace_back("--remote-debugging-port=0");
  for (const auto& arg : options.value("args", Json::array())) args.push_back(arg.get<std::string>());
  int output[2];
  if (::pipe2(output, O_CLOEXEC) != 0) {
    reply = error_body("session not created", "cannot make a pipe");
    return;
  }
  session->pid = ::fork();
  if (session->pid == 0) {
    ::setpgid(0, 0);
    ::dup2(output[1], STDOUT_FILENO);
    ::dup2(output[1], STDERR_FILENO);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(output[1]);
  Session* s = session.get();
  s->output = std::thread([s, fd = output[0]] {
    static const std::regex kListening(R"(Marionette\s+INFO\s+Listening on port (\d+))");
    std::string pending;
    char chunk[4096];
    ssize_t n = 0;
    while ((n = ::read(fd, chunk, sizeof chunk)) > 0) {
      pending.append(chunk, static_cast<std::size_t>(n));
      std::smatch match;
      std::scoped_lock lock(s->mutex);
      if (s->marionette_port == 0 && std::regex_search(pending, match, kListening)) {
        s->marionette_port = std::stoi(match[1]);
        s->changed.notify_all();
      }
      if (pending.size() > 65536) pending.erase(0, pending.size() - 4096);
    }
    ::close(fd);
    std::scoped_lock lock(s->mutex);
    s->output_ended = true;
    s->changed.notify_all();
  });
  {
    std::unique_lock lock(s->mutex);
    s->changed.wait_for(lock, std::chrono::seconds(60), [s] { return s->marionette_port != 0 || s->output_ended; });
  }
  std::string failure;
  if (s->marionette_port == 0) {
    failure = "Firefox did not start Marionette";
  } else {
    s->marionette = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(s->marionette_port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s->marionette, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        !read_packet(s->marionette)) {
      failure = "cannot reach Marionette";
    }
  }
  if (failure.empty()) {
    auto [result, error] = s->command("WebDriver:NewSession", asked);
    if (!error.is_null()) {
      failure = error.is_object() ? error.value("message", error.dump()) : error.dump();
    } else {
      s->id = result.value("sessionId", "");
      reply = Json{{"value", {{"sessionId", s->id}, {"capabilities", result["capabilities"]}}}}.dump();
      status = 200;
    }
  }
  std::scoped_lock lock(mutex_);
  if (!failure.empty()) {
    session->end();
    reply = error_body("session not created", failure);
    return;
  }
  records_[record].id = s->id;
  records_[record].firefox = s->pid;
  open_.push_back(std::move(session));
}

void GeckoDriver::delete_session(const std::string& id) {
  std::unique_ptr<Session> ending;
  {
    std::scoped_lock lock(mutex_);
    for (auto it = open_.begin(); it != open_.end(); ++it) {
      if ((*it)->id != id) continue;
      ending = std::move(*it);
      open_.erase(it);
      break;
    }
    for (auto& record : records_) record.deleted = record.deleted || record.id == id;
  }
  if (ending) ending->end();
}

}  // namespace vimgpt::test
