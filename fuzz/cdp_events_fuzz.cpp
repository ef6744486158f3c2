// DevTools messages to a Chromium tab (engine_events.h): events of the tab's session and the browser's.
#include "engine_events.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vimgpt::fuzz::feed_tab(data, size, vimgpt::launch::Engine::Chromium);
}
