// An open family's replies are untrusted text as much as vimgpt's own: whatever a self-hosted model (or the server in
// front of it) writes, reading it in its family's dialect, building the next conversation from it and reading it as
// --verify's verdict must give a value or an error, never crash or read out of bounds. So must the providers' computer
// tools' replies (--mode computer-use: Anthropic's tool_use blocks, OpenAI's computer and function calls with their
// safety checks, Gemini's functionCall parts with their safety decisions). The first byte picks the family or the tool;
// the rest is the reply.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agent/agent.h"
#include "vision/dialect.h"
#include "vision/vision.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace vision = vimgpt::vision;
  if (size == 0) return 0;
  static constexpr std::array<const char*, 10> kFamilies = {"qwen2.5-vl", "qwen3-vl",    "qwen3.5",     "fara",
                                                            "fara-1.5",   "ui-tars-1.5", "gui-owl-1.5", "glm-v",
                                                            "holo3",      "molmoweb"};
  static const std::array<vision::Dialect, 3> kComputerTools = {
      vision::detail::computer_tool_dialect(vision::Provider::Anthropic),
      vision::detail::computer_tool_dialect(vision::Provider::OpenAI),
      vision::detail::computer_tool_dialect(vision::Provider::Gemini)};
  const std::size_t pick = data[0] % (kFamilies.size() + kComputerTools.size());
  const bool computer_tool = pick >= kFamilies.size();
  const vision::Dialect* dialect =
      computer_tool ? &kComputerTools[pick - kFamilies.size()] : vision::find_dialect(kFamilies[pick]);
  if (dialect == nullptr) __builtin_trap();  // a family the catalogue lost: the target tests nothing
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  // A reply reaches the dialects out of the server's JSON body, whose parser refuses text that is not UTF-8: only
  // such text is fed (the JSON writer throws on the rest, which no real reply can hold).
  try {
    (void)vision::Json(std::string(text)).dump();
  } catch (const vision::Json::exception&) {
    return 0;
  }
  // A frame its server would resize (1080x720 sent at 768x512), so every conversion runs.
  const vision::detail::PointFrame frames{{768, 512}, {1080, 720}};
  auto read = vision::detail::read_dialect_reply(*dialect, text, text, frames);
  if (read) {
    auto action = vimgpt::agent::parse_action(read->action);
    if (action) (void)vimgpt::agent::to_json(*action).dump();
  }
  // The reply as an earlier turn of the next request (each family's history reads its own replies back).
  vision::StepRequest step;
  step.objective = "fuzz";
  step.history.push_back({vision::Json(), "ok", "http://127.0.0.1/", "", std::string(text)});
  step.earlier_frames = 1;
  if (computer_tool) {
    (void)vision::detail::pending_safety_checks(text);
    (void)vision::detail::computer_tool_turns(step, {{768, 512}, {768, 512}}, dialect->kind);
  } else {
    (void)vision::detail::dialect_turns(*dialect, step, {{768, 512}, {768, 512}});
  }
  (void)vision::read_check(text);
  return 0;
}
