// Model replies are untrusted text: whatever a model (or a proxy in between) sends, reply parsing, local
// repair and the action parser must answer with a value or an error, never crash or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/agent.h"
#include "vision/vision.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = vimgpt::vision::parse_reply(text);
  if (!parsed) return 0;
  auto action = vimgpt::agent::parse_action(parsed->action);
  if (action) (void)vimgpt::agent::to_json(*action).dump();
  if (parsed->action.contains("navigate") && parsed->action["navigate"].is_string())
    (void)vimgpt::agent::normalize_url(parsed->action["navigate"].get<std::string>());
  return 0;
}
