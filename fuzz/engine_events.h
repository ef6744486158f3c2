// What a browser (or whatever answers on its socket: a Selenium Grid node, a remote session) sends a tab, for the
// engines' event fuzz targets (bidi_events_fuzz, cdp_events_fuzz): the input is a NUL-framed stream of messages,
// events or anything else, that reaches a real tab's event handler once the tab is open. The tab is opened through the
// surface (Tab::open on a connection, as a batch worker opens one) over a transport that answers every command with one
// success holding what either engine's start reads; after the stream, the tab's bookkeeping is read as the agent reads
// it and the tab closed. Nothing may crash, leak or hang.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "browser/browser.h"
#include "wire/framing.h"
#include "wire/wire.h"

namespace vimgpt::fuzz {

using wire::Json;

// Every command gets a success whose result has what any of the tab's calls reads (BiDi: a context, a user context, an
// intercept, a script, a tree of one tab; DevTools: a browser context, a target, a session, a frame tree, a version);
// once `open` is set, the fuzzed messages come in between the replies.
class AnsweringTransport final : public wire::Transport {
 public:
  explicit AnsweringTransport(std::deque<std::string> stream) : stream_(std::move(stream)) {}
  Status send(std::string_view message) override {
    const Json command = Json::parse(message, nullptr, false);
    std::scoped_lock lock(mutex_);
    if (command.is_object() && command.contains("id")) {
      static const Json kResult = {
          {"context", "ctx"},
          {"userContext", "uc"},
          {"intercept", "int"},
          {"script", "s"},
          {"ready", false},
          {"contexts", Json::array({{{"context", "ctx"}, {"url", "about:blank"}}})},
          {"result", {{"type", "undefined"}}},
          {"type", "success"},
          {"browserContextId", "bc"},
          {"targetId", "tgt"},
          {"sessionId", "sess"},
          {"frameTree", {{"frame", {{"id", "frame"}, {"url", "about:blank"}, {"loaderId", "loader"}}}}},
          {"userAgent", "Mozilla/5.0 HeadlessChrome/140.0.0.0"}};
      replies_.push_back(Json{{"type", "success"}, {"id", command["id"]}, {"result", kResult}}.dump());
    }
    changed_.notify_all();
    return ok();
  }
  Result<std::string> receive() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !replies_.empty() || (open_ && !stream_.empty()); });
    if (closed_) return fail(ErrorKind::BrowserExited, "closed");
    std::deque<std::string>& from = !replies_.empty() ? replies_ : stream_;
    std::string message = std::move(from.front());
    from.pop_front();
    if (open_ && stream_.empty()) changed_.notify_all();
    return message;
  }
  void interrupt() override { close(); }
  void close() override {
    std::scoped_lock lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  [[nodiscard]] std::string describe() const override { return "fuzzed browser socket"; }

  // The tab is open: the stream starts; returns once all of it has been read.
  void play() {
    std::unique_lock lock(mutex_);
    open_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return closed_ || stream_.empty(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> stream_;
  std::deque<std::string> replies_;
  bool open_ = false;
  bool closed_ = false;
};

// The input as a tab of `engine` receives it.
inline int feed_tab(const std::uint8_t* data, std::size_t size, launch::Engine engine) {
  wire::NulFramer framer;
  std::vector<std::string> messages;
  framer.feed({reinterpret_cast<const char*>(data), size}, messages);
  auto owned = std::make_unique<AnsweringTransport>(
      std::deque<std::string>(std::make_move_iterator(messages.begin()), std::make_move_iterator(messages.end())));
  AnsweringTransport& transport = *owned;
  auto connection = std::make_shared<wire::Connection>(std::move(owned));
  browser::TabOptions options;
  options.navigation_filter = [](std::string_view url) -> std::optional<std::string> {
    if (url.find("refused") != std::string_view::npos) return std::string("refused by the fuzz target");
    return std::nullopt;
  };
  options.http_credentials = [](const std::string&) { return std::optional<browser::HttpCredentials>({"user", "pw"}); };
  auto tab = browser::Tab::open(connection, options, engine);
  if (!tab) return 0;
  transport.play();
  // The bookkeeping the events wrote, read as the agent reads it.
  (void)(*tab)->last_url();
  (void)(*tab)->page_generation();
  (void)(*tab)->network_state();
  (void)(*tab)->take_dialogs();
  (void)(*tab)->take_blocked();
  (void)(*tab)->take_auth_challenges();
  (void)(*tab)->take_downloads(std::chrono::milliseconds(0));
  (*tab)->close();
  return 0;
}

}  // namespace vimgpt::fuzz
