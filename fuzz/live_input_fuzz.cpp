// The live view's WebSocket input: whatever a page sends (anyone with the token can script the page) is parsed as the
// server parses it and read at the door (live/input.h). Nothing may throw, crash or leak, and what is read stays within
// its bounds: a point inside the image, one to three clicks, a wheel turn of at most kMaxWheel pixels.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "live/input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vimgpt::live;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Json message = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return 0;
  const auto request = read_page_request(message);
  if (!request) {
    if (request.error().message.empty()) __builtin_trap();  // an error says what is wrong
    return 0;
  }
  if (const auto& input = request->input) {
    const bool inside = input->x >= 0 && input->x <= 1 && input->y >= 0 && input->y <= 1;
    const bool bounded = input->clicks >= 1 && input->clicks <= 3 && input->dx >= -kMaxWheel &&
                         input->dx <= kMaxWheel && input->dy >= -kMaxWheel && input->dy <= kMaxWheel;
    if (!inside || !bounded) __builtin_trap();
  }
  return 0;
}
