// Standard base64 (RFC 4648, with padding): screenshots arrive from Chromium in it and images go to models in it.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace vimgpt {

std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

}  // namespace vimgpt
