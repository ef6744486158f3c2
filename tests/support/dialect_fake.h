// The fake model speaking an open family's dialect: it finds a colour in the last screenshot it was sent, and
// answers as the family would, in the family's own form and point space (pixels of the image after its server's
// smart_resize, or 0-1000), so a point lands only if vimgpt converts it back right. It refuses what vLLM refuses
// when served as the family's docs say: more images in one request than --limit-mm-per-prompt allows. Its resize
// is written here again from the authors' description, not taken from vimgpt.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "support/fake_model_server.h"

namespace vimgpt::test {

struct FakeFamily {
  std::string dialect;  // "computer_use", "ui_tars", "glm_marks", "holo_json" or "molmoweb_json"
  bool thousandths = false;
  int factor = 28;
  std::int64_t min_pixels = 3136;
  std::int64_t max_pixels = 12845056;
  std::size_t max_images = 3;    // vLLM --limit-mm-per-prompt image=N
  bool think_tag = false;        // wraps its thoughts in <think></think>
  bool tool_calls = false;       // the server parses the call out into message.tool_calls (vLLM's hermes parser)
  bool action_line = false;      // GUI-Owl: "Action: ..." before the call, and the answer in an answer call
  bool answers_in_call = false;  // Fara1.5: terminate carries the answer
  bool xml_calls = false;        // Qwen3.5: <function=computer_use><parameter=action>...</parameter></function>
};

// qwen2.5-vl, qwen3-vl, qwen3.5, fara, fara-1.5, ui-tars-1.5, gui-owl-1.5, glm-v, holo3, molmoweb as their authors
// describe them (models.json's sources).
FakeFamily fake_family(const std::string& name);

struct Centre {
  double x = 0;
  double y = 0;
  int width = 0;  // of the image it was found in
  int height = 0;
};
// The last image of the last message that has one (in OpenAI's or Anthropic's form, a tool_result's too): the
// screenshot the model is asked about, its bytes; nullopt when there is none.
std::optional<std::string> last_image(const nlohmann::json& body);

// The centre of the pixels near `colour` (each channel within 40) in an encoded image; nullopt when none.
std::optional<Centre> find_colour(const std::string& image_bytes, std::array<std::uint8_t, 3> colour);

// The colour's centre in the last screenshot, in the family's own point space (its server's resize, or 0-1000).
std::optional<Centre> point_of_colour(const FakeFamily& family, const nlohmann::json& body,
                                      std::array<std::uint8_t, 3> colour);

// Clicks the colour's centre while it shows, then ends with `answer` (terminate / finished). GLM-V's web mode
// names a numbered mark instead: the fake clicks the marked element whose name the task mentions (every word of it),
// while one is listed, and keeps a memory it expects back in its next prompt.
FakeModelServer::Responder dialect_responder(FakeFamily family, std::array<std::uint8_t, 3> colour, std::string answer);

}  // namespace vimgpt::test
