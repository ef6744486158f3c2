// The live view's stream: Firefox 153 has no screencast, so a thread captures the viewport while someone watches.
#include "browser/bidi/state.h"
#include "common/base64.h"

namespace vimgpt::browser {

using bidi::Clock;
using bidi::kBidiTimeout;
using bidi::kSandbox;

void BidiTab::State::stream_frames() {
  std::string last;
  std::unique_lock lock(screencast.mutex);
  while (screencast.sink) {
    const Json format = {{"type", "image/jpeg"}, {"quality", screencast.options.quality / 100.0}};
    lock.unlock();
    std::shared_ptr<wire::Connection> link;  // a relaunch replaces it
    std::string at;                          // and following a new tab changes it
    {
      std::scoped_lock state(mutex);
      link = connection;
      at = context;
    }
    if (link && link->alive()) {
      auto shot = link->call("browsingContext.captureScreenshot",
                             {{"context", at}, {"origin", "viewport"}, {"format", format}}, {}, bidi::kBidiTimeout);
      auto bytes = shot ? base64_decode(shot->value("data", "")) : Result<std::string>(shot.failure());
      if (bytes && *bytes != last) {
        last = *bytes;
        auto frame = inspect_image(std::move(*bytes));
        FrameSink sink;
        {
          std::scoped_lock cast(screencast.mutex);
          sink = screencast.sink;
        }
        if (frame && sink) sink(std::move(*frame));
      }
    }
    lock.lock();
    screencast.wake.wait_for(lock, BidiScreencast::kInterval, [&] { return !screencast.sink; });
  }
}

void BidiTab::start_screencast(FrameSink sink, const ScreencastOptions& options) {
  auto& cast = s_->screencast;
  std::scoped_lock lock(cast.mutex);
  const bool running = static_cast<bool>(cast.sink);
  cast.sink = std::move(sink);
  cast.options = options;
  if (running) return;                             // the loop takes the new sink
  if (cast.thread.joinable()) cast.thread.join();  // a loop that was told to stop has ended, or is about to
  cast.thread = std::thread([s = s_.get()] { s->stream_frames(); });
}

void BidiTab::stop_screencast() {
  auto& cast = s_->screencast;
  std::thread ending;
  {
    std::scoped_lock lock(cast.mutex);
    cast.sink = nullptr;
    cast.wake.notify_all();
    ending = std::move(cast.thread);
  }
  if (ending.joinable()) ending.join();
}

}  // namespace vimgpt::browser
