// The tab streamed as it repaints, for a person watching the run (the live view).
#include "browser/cdp/state.h"
#include "common/base64.h"

namespace vimgpt::browser {

void CdpTab::Impl::post_start_screencast() {
  if (!connection || session_id.empty() || !connection->alive()) return;
  connection->post("Page.startScreencast",
                   {{"format", "jpeg"},
                    {"quality", screencast_options.quality},
                    {"maxWidth", screencast_options.max_width},
                    {"maxHeight", screencast_options.max_height}},
                   session_id);
}

void CdpTab::Impl::on_screencast_frame(const wire::Event& event) {
  FrameSink sink;
  {
    std::scoped_lock lock(mutex);
    if (!connection || event.session_id != session_id) return;  // a tab we left: it stops with its session
    connection->post("Page.screencastFrameAck", {{"sessionId", event.params.value("sessionId", 0)}}, session_id);
    sink = screencast_sink;
  }
  if (!sink) return;
  auto bytes = base64_decode(event.params.value("data", ""));
  if (!bytes) return;
  auto frame = inspect_image(std::move(*bytes));
  if (frame) sink(std::move(*frame));
}

void CdpTab::start_screencast(FrameSink sink, const ScreencastOptions& options) {
  std::scoped_lock lock(impl_->mutex);
  impl_->screencast_sink = std::move(sink);
  impl_->screencast_options = options;
  impl_->post_start_screencast();
}

void CdpTab::stop_screencast() {
  std::scoped_lock lock(impl_->mutex);
  if (!impl_->screencast_sink) return;
  impl_->screencast_sink = nullptr;
  if (impl_->connection && !impl_->session_id.empty() && impl_->connection->alive()) {
    impl_->connection->post("Page.stopScreencast", Json::object(), impl_->session_id);
  }
}

}  // namespace vimgpt::browser
