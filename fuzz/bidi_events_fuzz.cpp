// WebDriver BiDi messages to a Firefox tab (engine_events.h).
#include "engine_events.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vimgpt::fuzz::feed_tab(data, size, vimgpt::launch::Engine::Firefox);
}
