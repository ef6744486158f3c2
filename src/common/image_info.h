// Reads an encoded image's format and size from its header bytes, without decoding it.
#pragma once

#include <optional>
#include <string_view>

namespace vimgpt {

struct ImageInfo {
  std::string_view mime;  // image/png, image/jpeg, image/webp
  int width = 0;
  int height = 0;
};

std::optional<ImageInfo> sniff_image(std::string_view bytes);

}  // namespace vimgpt
