// Private to src/replay: reading a signature's facts, which come from a record file a person may have edited.
#pragma once

#include <string>

#include "replay/replay.h"

namespace vimgpt::replay::detail {

// The string at `key`, or "" when it is missing or not a string (never an exception).
inline std::string field(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace vimgpt::replay::detail
