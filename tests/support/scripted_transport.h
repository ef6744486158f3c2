// A DevTools transport that plays back given messages, as a browser would answer: only once the first
// command has been sent (so a reply can meet a waiting call), then it reports the link closed. Used by the
// connection's unit tests and by fuzz/cdp_reader_fuzz.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>

#include "wire/wire.h"

namespace vimgpt::test {

class ScriptedTransport final : public wire::Transport {
 public:
  explicit ScriptedTransport(std::deque<std::string> messages) : messages_(std::move(messages)) {}
  Status send(std::string_view) override {
    std::scoped_lock lock(mutex_);
    sent_ = true;
    changed_.notify_all();
    return ok();
  }
  Result<std::string> receive() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return sent_ || closed_; });
    if (closed_ || messages_.empty()) return fail(ErrorKind::BrowserExited, "the script is finished");
    std::string message = std::move(messages_.front());
    messages_.pop_front();
    return message;
  }
  void interrupt() override { close(); }
  void close() override {
    std::scoped_lock lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  [[nodiscard]] std::string describe() const override { return "scripted transport"; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> messages_;
  bool sent_ = false;
  bool closed_ = false;
};

}  // namespace vimgpt::test
