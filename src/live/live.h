// The live view: a page a person opens in their browser to watch runs as they happen (the tab itself, streamed
// while the page is open; the labelled frame the model saw; the step log with tokens, cost and time) and to pause
// a run, take the page over with their own mouse and keys, and hand it back. A small HTTP/WebSocket server on one
// thread; the page is src/live/page/live.html, embedded at build time.
//
//   auto live = live::Server::start({"127.0.0.1", 8765});
//   std::cerr << "watch: " << (*live)->url() << "\n";
//   auto watch = (*live)->add_run("find the opening hours", *tab, &interrupted);
//   options.overseer = watch.get();  // agent::AgentOptions
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "agent/agent.h"
#include "browser/browser.h"
#include "common/result.h"

namespace vimgpt::live {

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;       // 0: any free port
  std::string token;  // empty: a random one; every request needs it
};

// --live's value: "HOST:PORT", ":PORT" or "PORT" (both on 127.0.0.1), "[::1]:PORT". InvalidArgument says what is
// accepted.
Result<Options> parse_address(std::string_view text);
// 127.0.0.0/8, ::1 and localhost: only this machine can reach the page.
bool is_loopback(std::string_view host);

class Watch;

class Server {
 public:
  // Listens at once and serves on a thread of its own until destroyed. Io when the address cannot be bound.
  static Result<std::unique_ptr<Server>> start(const Options& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // What to open: "http://HOST:PORT/?token=TOKEN".
  [[nodiscard]] std::string url() const;
  [[nodiscard]] int port() const;
  // How many pages are open on the server now (the tab is streamed only while there is one).
  [[nodiscard]] int watchers() const;
  // Waits until exactly `count` pages are open, at most `timeout`: whether they are.
  bool wait_for_watchers(int count, std::chrono::milliseconds timeout) const;

  // A tile for one run on `tab` (a batch shows one per task under way). Give it to the run as its overseer; the
  // tile stays, marked ended, after the Watch is gone. `interrupted` (Ctrl-C) ends a wait for the person.
  std::unique_ptr<Watch> watch(std::string title, browser::Tab& tab, const std::atomic<bool>* interrupted = nullptr);

  struct Hub;

 private:
  explicit Server(std::shared_ptr<Hub> hub);
  std::shared_ptr<Hub> hub_;
};

// One run as the live view shows it, and the person's way into it: pause between steps, take over, hand back.
class Watch final : public agent::Overseer {
 public:
  ~Watch() override;
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  void on_step(const agent::StepRecord& step, const hints::Capture& capture) override;
  Result<std::optional<agent::Takeover>> checkpoint(
      std::optional<std::chrono::steady_clock::time_point> deadline) override;
  Result<agent::Takeover> hand_over(agent::ActionKind kind, const std::string& message,
                                    std::optional<std::chrono::steady_clock::time_point> deadline) override;
  void on_end(const agent::RunResult& result) override;

 private:
  friend class Server;
  Watch(std::shared_ptr<Server::Hub> hub, int id, browser::Tab& tab, const std::atomic<bool>* interrupted);
  std::shared_ptr<Server::Hub> hub_;
  int id_;
  browser::Tab& tab_;
  const std::atomic<bool>* interrupted_;
};

}  // namespace vimgpt::live
