// The HTTP client against real loopback servers: statuses, headers, multipart, retries, timeouts, cut and
// refused connections, size limits, and that credentials never leak into error messages.
#include "http/http.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "support/refused_port.h"

namespace vimgpt::http {
namespace {

using namespace std::chrono_literals;

// An httplib server on 127.0.0.1 with the routes a test installs; stopped (and any held handler released)
// when it goes out of scope.
class Loopback {
 public:
  explicit Loopback(const std::function<void(httplib::Server&, Loopback&)>& routes) {
    routes(server_, *this);
    server_.set_tcp_nodelay(true);  // else Nagle and delayed ACKs add ~40 ms per reply
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~Loopback() {
    release();
    server_.stop();
    thread_.join();
  }
  Loopback(const Loopback&) = delete;
  Loopback& operator=(const Loopback&) = delete;

  [[nodiscard]] std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  // Blocks a handler until the test ends (a reply slower than any client timeout), without sleeping.
  void hold() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, 10s, [this] { return released_; });
  }
  void release() {
    {
      std::scoped_lock lock(mutex_);
      released_ = true;
    }
    cv_.notify_all();
  }
  std::atomic<int> hits{0};

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool released_ = false;
};

// A TCP listener that accepts `connections` connections and closes each without a byte of reply.
class Hangup {
 public:
  explicit Hangup(int connections) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd_, 8) != 0) {
      throw std::runtime_error("hangup server: cannot listen on 127.0.0.1");
    }
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this, connections] {
      for (int i = 0; i < connections; ++i) {
        const int client = ::accept(fd_, nullptr, nullptr);
        if (client < 0) return;
        char buffer[4096];
        (void)::recv(client, buffer, sizeof buffer, 0);  // let the request arrive, then hang up
        ::close(client);
      }
    });
  }
  ~Hangup() {
    thread_.join();
    ::close(fd_);
  }
  Hangup(const Hangup&) = delete;
  Hangup& operator=(const Hangup&) = delete;
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/x"; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// Records the waits a retry loop asks for, instead of sleeping them.
struct RecordedSleeps {
  std::vector<Milliseconds> waits;
  RetryPolicy policy(int max_retries = 4) {
    RetryPolicy policy;
    policy.max_retries = max_retries;
    policy.base_delay = 1ms;
    policy.sleep = [this](Milliseconds wait) { waits.push_back(wait); };
    return policy;
  }
};

HttpRequest post(std::string url, std::string body = "{}") {
  HttpRequest request;
  request.url = std::move(url);
  request.body = std::move(body);
  request.headers.set("Content-Type", "application/json");
  return request;
}

TEST(Headers, LookupIgnoresCaseAndSetReplaces) {
  Headers headers{{"Content-Type", "text/plain"}};
  headers.add("X-Thing", "1");
  headers.set("content-type", "application/json");
  EXPECT_EQ(headers.get("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(headers.get("x-thing"), "1");
  EXPECT_FALSE(headers.get("missing").has_value());
  EXPECT_EQ(headers.entries().size(), 2U);
}

TEST(Base64, KnownVectorsAndRoundTrip) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t length = 0; length < all.size(); length += 37) {
    const std::string bytes = all.substr(0, length);
    EXPECT_EQ(*base64_decode(base64_encode(bytes)), bytes);
  }
  EXPECT_FALSE(base64_decode("Zm9v!").has_value());
}

TEST(RetryAfter, ParsesSecondsAndDates) {
  EXPECT_EQ(parse_retry_after("1"), Milliseconds(1000));
  EXPECT_EQ(parse_retry_after(" 2.5 "), Milliseconds(2500));
  EXPECT_EQ(parse_retry_after("0"), Milliseconds(0));
  EXPECT_FALSE(parse_retry_after("").has_value());
  EXPECT_FALSE(parse_retry_after("soon").has_value());
  EXPECT_FALSE(parse_retry_after("-3").has_value());
  const auto past = parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT");
  ASSERT_TRUE(past.has_value());
  EXPECT_EQ(*past, Milliseconds(0));
}

TEST(Retry, RetryableStatuses) {
  for (long status : {429L, 500L, 502L, 503L, 504L}) EXPECT_TRUE(is_retryable_status(status)) << status;
  for (long status : {200L, 400L, 401L, 403L, 404L, 422L}) EXPECT_FALSE(is_retryable_status(status)) << status;
}

TEST(Retry, BackoffGrowsWithJitterAndCap) {
  RetryPolicy policy;
  policy.base_delay = 100ms;
  policy.max_delay = 1000ms;
  for (int trial = 0; trial < 50; ++trial) {
    const auto first = backoff_delay(policy, 1, std::nullopt);
    const auto third = backoff_delay(policy, 3, std::nullopt);
    const auto tenth = backoff_delay(policy, 10, std::nullopt);
    EXPECT_GE(first, 50ms);
    EXPECT_LE(first, 100ms);
    EXPECT_GE(third, 200ms);
    EXPECT_LE(third, 400ms);
    EXPECT_GE(tenth, 500ms);
    EXPECT_LE(tenth, 1000ms);
  }
  EXPECT_EQ(backoff_delay(policy, 5, Milliseconds(1000)), 1000ms);
}

TEST(Perform, PostsBodyAndHeadersAndReadsTheReply) {
  Loopback server([](httplib::Server& s, Loopback&) {
    s.Post("/echo", [](const httplib::Request& request, httplib::Response& response) {
      response.set_header("X-Seen-Auth", request.get_header_value("Authorization"));
      response.set_content("got:" + request.body, "text/plain");
      response.status = 201;
    });
  });
  HttpRequest request = post(server.url("/echo"), R"({"a":1})");
  request.headers.set("Authorization", "Bearer abc");
  auto response = perform(request);
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, R"(got:{"a":1})");
  EXPECT_EQ(response->headers.get("x-seen-auth"), "Bearer abc");
  EXPECT_EQ(response->headers.get("CONTENT-TYPE"), "text/plain");
}

TEST(Perform, AnErrorStatusIsAValueNotAnError) {
  Loopback server([](httplib::Server& s, Loopback&) {
    s.Post("/missing", [](const httplib::Request&, httplib::Response& response) { response.status = 404; });
  });
  auto response = perform(post(server.url("/missing")));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
  EXPECT_FALSE(response->ok());
}

TEST(Perform, SendsMultipartParts) {
  Loopback server([](httplib::Server& s, Loopback&) {
    s.Post("/upload", [](const httplib::Request& request, httplib::Response& response) {
      const auto file = request.get_file_value("file");
      const auto model = request.get_file_value("model");
      response.set_content(file.filename + "|" + file.content_type + "|" + file.content + "|" + model.content,
                           "text/plain");
    });
  });
  HttpRequest request;
  request.url = server.url("/upload");
  request.parts = {{"file", "speech.wav", "audio/wav", std::string("RIFF\0\1\2", 7)}, {"model", "", "", "whisper-1"}};
  auto response = perform(request);
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->body, std::string("speech.wav|audio/wav|RIFF\0\1\2|whisper-1", 38));
}

TEST(PerformWithRetry, HonoursRetryAfterThenSucceeds) {
  Loopback server([](httplib::Server& s, Loopback& self) {
    s.Post("/rate", [&self](const httplib::Request&, httplib::Response& response) {
      if (self.hits++ == 0) {
        response.status = 429;
        response.set_header("Retry-After", "1");
        return;
      }
      response.set_content("fine", "text/plain");
    });
  });
  RecordedSleeps sleeps;
  std::vector<RetryEvent> events;
  RetryPolicy policy = sleeps.policy();
  policy.on_retry = [&](const RetryEvent& event) { events.push_back(event); };
  Client client;
  int attempts = 0;
  auto response = perform_with_retry(client, post(server.url("/rate")), policy, &attempts);
  ASSERT_TRUE(response) << response.error().describe();
  EXPECT_EQ(response->body, "fine");
  EXPECT_EQ(attempts, 2);
  ASSERT_EQ(sleeps.waits.size(), 1U);
  EXPECT_EQ(sleeps.waits[0], 1000ms);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].reason, "HTTP 429");
}

TEST(PerformWithRetry, ServerErrorsTwiceThenSuccess) {
  Loopback server([](httplib::Server& s, Loopback& self) {
    s.Post("/flaky", [&self](const httplib::Request&, httplib::Response& response) {
      if (self.hits++ < 2) {
        response.status = 500;
        return;
      }
      response.set_content("third time", "text/plain");
    });
  });
  RecordedSleeps sleeps;
  Client client;
  int attempts = 0;
  auto response = perform_with_retry(client, post(server.url("/flaky")), sleeps.policy(), &attempts);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "third time");
  EXPECT_EQ(attempts, 3);
  EXPECT_EQ(sleeps.waits.size(), 2U);
  EXPECT_EQ(server.hits.load(), 3);
}

TEST(PerformWithRetry, GivesUpAfterMaxRetriesAndReturnsTheLastResponse) {
  Loopback server([](httplib::Server& s, Loopback& self) {
    s.Post("/down", [&self](const httplib::Request&, httplib::Response& response) {
      ++self.hits;
      response.status = 503;
    });
  });
  RecordedSleeps sleeps;
  Client client;
  auto response = perform_with_retry(client, post(server.url("/down")), sleeps.policy(2));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(server.hits.load(), 3);
  EXPECT_EQ(sleeps.waits.size(), 2U);
}

TEST(PerformWithRetry, DoesNotRetryClientErrors) {
  for (int status : {400, 401, 403, 404}) {
    Loopback server([status](httplib::Server& s, Loopback& self) {
      s.Post("/no", [&self, status](const httplib::Request&, httplib::Response& response) {
        ++self.hits;
        response.status = status;
      });
    });
    RecordedSleeps sleeps;
    Client client;
    auto response = perform_with_retry(client, post(server.url("/no")), sleeps.policy());
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, status);
    EXPECT_EQ(server.hits.load(), 1) << status;
    EXPECT_TRUE(sleeps.waits.empty());
  }
}

TEST(PerformWithRetry, DoesNotWaitForAnUnreasonableRetryAfter) {
  Loopback server([](httplib::Server& s, Loopback& self) {
    s.Post("/later", [&self](const httplib::Request&, httplib::Response& response) {
      ++self.hits;
      response.status = 429;
      response.set_header("Retry-After", "3600");
    });
  });
  RecordedSleeps sleeps;
  Client client;
  auto response = perform_with_retry(client, post(server.url("/later")), sleeps.policy());
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 429);
  EXPECT_EQ(server.hits.load(), 1);
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST(PerformWithRetry, ASlowReplyTimesOutAndIsRetried) {
  Loopback server([](httplib::Server& s, Loopback& self) {
    s.Post("/slow", [&self](const httplib::Request&, httplib::Response& response) {
      ++self.hits;
      self.hold();
      response.set_content("too late", "text/plain");
    });
  });
  HttpRequest request = post(server.url("/slow"));
  request.total_timeout = 200ms;
  RecordedSleeps sleeps;
  Client client;
  auto response = perform_with_retry(client, request, sleeps.policy(1));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Timeout);
  EXPECT_NE(response.error().message.find("after 2 attempts"), std::string::npos) << response.error().message;
  EXPECT_EQ(sleeps.waits.size(), 1U);
}

// A server that holds the request for minutes (a Grid queueing a new session) does not hold the caller past its
// stop: the request ends Cancelled about a second after stop() turns true, not at its 5-minute timeout.
TEST(Perform, StopEndsARequestTheServerHolds) {
  Loopback server([](httplib::Server& s, Loopback& self) {
    s.Post("/held", [&self](const httplib::Request&, httplib::Response& response) {
      ++self.hits;
      self.hold();
      response.set_content("too late", "text/plain");
    });
  });
  std::atomic<bool> stopping{false};
  HttpRequest request = post(server.url("/held"));
  request.total_timeout = 300s;
  request.stop = [&] { return stopping.load(); };
  std::thread stopper([&] {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (server.hits == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    stopping = true;  // the server holds the request now
  });
  const auto start = std::chrono::steady_clock::now();
  auto response = perform(request);
  const auto took = std::chrono::steady_clock::now() - start;
  stopper.join();
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Cancelled) << response.error().message;
  EXPECT_NE(response.error().message.find("was stopped"), std::string::npos) << response.error().message;
  EXPECT_LT(took, 20s);  // promptness, not a benchmark: the timeout was 300 s

  // Already stopped: the request is not sent at all.
  const int hits_before = server.hits;
  auto never = perform(request);
  ASSERT_FALSE(never);
  EXPECT_EQ(never.error().kind, ErrorKind::Cancelled);
  EXPECT_EQ(server.hits, hits_before);
}

TEST(PerformWithRetry, RefusedConnectionIsANetworkErrorAndRetried) {
  const test::RefusedPort refused;
  const std::string url = refused.url("/v1?key=sk-in-url");
  RecordedSleeps sleeps;
  Client client;
  auto response = perform_with_retry(client, post(url), sleeps.policy(2));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Network);
  EXPECT_NE(response.error().message.find("cannot connect"), std::string::npos) << response.error().message;
  EXPECT_EQ(response.error().message.find("sk-in-url"), std::string::npos) << response.error().message;
  EXPECT_EQ(sleeps.waits.size(), 2U);
}

TEST(PerformWithRetry, ConnectionClosedWithoutReplyIsRetriedThenReported) {
  Hangup server(2);
  RecordedSleeps sleeps;
  Client client;
  auto response = perform_with_retry(client, post(server.url()), sleeps.policy(1));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Network);
  EXPECT_NE(response.error().message.find("without replying"), std::string::npos) << response.error().message;
  EXPECT_EQ(sleeps.waits.size(), 1U);
}

TEST(Perform, AReplyOverTheLimitIsAnError) {
  Loopback server([](httplib::Server& s, Loopback&) {
    s.Post("/big", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(std::string(200'000, 'x'), "text/plain");
    });
  });
  HttpRequest request = post(server.url("/big"));
  request.max_response_bytes = 1024;
  RecordedSleeps sleeps;
  Client client;
  auto response = perform_with_retry(client, request, sleeps.policy());
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().kind, ErrorKind::Http);
  EXPECT_NE(response.error().message.find("exceeded"), std::string::npos);
  EXPECT_TRUE(sleeps.waits.empty());
}

TEST(CheckStatus, SaysWhatToFixAndNeverShowsTheKey) {
  HttpRequest request = post("https://api.example.test/v1/chat/completions");
  request.headers.set("Authorization", "Bearer sk-very-secret-123");
  HttpResponse response;
  response.status = 401;
  response.body = R"({"error":{"message":"Incorrect API key provided: sk-very-secret-123"}})";
  auto status = check_status(response, request, "model gpt-4o at https://api.example.test/v1");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::Http);
  EXPECT_NE(status.error().message.find("API key was refused"), std::string::npos) << status.error().message;
  EXPECT_NE(status.error().message.find("Incorrect API key provided"), std::string::npos);
  EXPECT_EQ(status.error().message.find("sk-very-secret-123"), std::string::npos) << status.error().message;

  response.status = 404;
  response.body = "no such route";
  status = check_status(response, request, "model gpt-5o at https://api.example.test/v1");
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("model gpt-5o at https://api.example.test/v1 was not found"), std::string::npos)
      << status.error().message;

  response.status = 200;
  EXPECT_TRUE(check_status(response, request, "x"));
}

TEST(Redact, RemovesHeaderSecretsAndQueryStrings) {
  HttpRequest request;
  request.url = "https://host/v1?key=abcdef";
  request.headers.set("x-api-key", "ant-secret");
  request.headers.set("Content-Type", "application/json");
  const std::string text = redact("x-api-key ant-secret url https://host/v1?key=abcdef type application/json", request);
  EXPECT_EQ(text.find("ant-secret"), std::string::npos);
  EXPECT_EQ(text.find("abcdef"), std::string::npos);
  EXPECT_NE(text.find("application/json"), std::string::npos);
}

TEST(Client, ConcurrentCallsOnOneClientAllSucceed) {
  Loopback server([](httplib::Server& s, Loopback&) {
    s.Post("/echo", [](const httplib::Request& request, httplib::Response& response) {
      response.set_content(request.body, "text/plain");
    });
  });
  Client client;
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> good{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const std::string body = std::to_string(t) + ":" + std::to_string(i);
        auto response = client.perform(post(server.url("/echo"), body));
        if (response && response->body == body) ++good;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(good.load(), 40);
}

}  // namespace
}  // namespace vimgpt::http
