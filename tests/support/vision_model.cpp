#include "support/vision_model.h"

#include <array>

#include "common/base64.h"
#include "common/pixels.h"

namespace vimgpt::test {
namespace {

// The colour at a point of the request's image (OpenAI's image_url or Anthropic's image block); -1s when none
// decodes.
std::array<int, 3> pixel_at(const ReceivedRequest& request, int x, int y) {
  std::string data;
  for (const auto& message : request.body.value("messages", nlohmann::json::array())) {
    const auto& content = message.value("content", nlohmann::json());
    if (!content.is_array()) continue;
    for (const auto& part : content) {
      if (part.value("type", "") == "image_url") {
        const std::string url = part["image_url"]["url"];
        data = url.substr(url.find(',') + 1);
      }
      if (part.value("type", "") == "image") data = part["source"]["data"].get<std::string>();
    }
  }
  auto bytes = base64_decode(data);
  if (!bytes) return {-1, -1, -1};
  auto pixels = decode_pixels(*bytes);
  if (!pixels || x >= pixels->width || y >= pixels->height) return {-1, -1, -1};
  const auto at = (static_cast<std::size_t>(y) * pixels->width + x) * pixels->channels;
  return {pixels->data[at], pixels->data[at + 1], pixels->data[at + 2]};
}

}  // namespace

void answer_like_a_vision_model(FakeModelServer& model) {
  model.set_responder([](const ReceivedRequest& request) {
    const auto right = pixel_at(request, 534, 300);
    const auto left = pixel_at(request, 234, 300);
    const bool drawn = right[2] > 150 && right[0] < 100 && left[0] > 150 && left[2] < 100;
    return ScriptedReply::text(drawn ? R"({"click": "D"})" : R"({"click": "S"})");
  });
}

}  // namespace vimgpt::test
