#include "live/input.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace vimgpt::live {
namespace {

// A field of the message: `fallback` when it is absent, InvalidArgument when it holds another type.
template <typename T>
Result<T> field(const Json& message, const char* key, T fallback, const char* what) {
  const auto found = message.find(key);
  if (found == message.end() || found->is_null()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    if (found->is_string()) return found->template get<std::string>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (found->is_number_integer()) {
      const auto value = found->template get<std::int64_t>();
      if (value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max()) {
        return static_cast<int>(value);
      }
    }
  } else {
    if (found->is_number()) return found->template get<double>();
  }
  return fail(ErrorKind::InvalidArgument, std::string("\"") + key + "\" takes " + what);
}

Result<PersonInput> read_input(const Json& input) {
  if (!input.is_object()) return fail(ErrorKind::InvalidArgument, "input needs an object: {kind, ...}");
  PersonInput read;
  VIMGPT_TRY(const std::string kind, field<std::string>(input, "kind", "", "click, wheel, text or key"));
  if (kind == "click") {
    read.kind = PersonInput::Kind::Click;
  } else if (kind == "wheel") {
    read.kind = PersonInput::Kind::Wheel;
  } else if (kind == "text") {
    read.kind = PersonInput::Kind::Text;
  } else if (kind == "key") {
    read.kind = PersonInput::Kind::Key;
  } else {
    return fail(ErrorKind::InvalidArgument, "unknown input \"" + kind + "\" (click, wheel, text or key)");
  }
  VIMGPT_TRY(const double x, field(input, "x", 0.0, "a fraction of the image's width, 0 to 1"));
  VIMGPT_TRY(const double y, field(input, "y", 0.0, "a fraction of the image's height, 0 to 1"));
  read.x = std::clamp(x, 0.0, 1.0);
  read.y = std::clamp(y, 0.0, 1.0);
  VIMGPT_TRY(const std::string button, field<std::string>(input, "button", "left", "left, right or middle"));
  read.button = button == "right"    ? browser::MouseButton::Right
                : button == "middle" ? browser::MouseButton::Middle
                                     : browser::MouseButton::Left;
  VIMGPT_TRY(const int clicks, field(input, "clicks", 1, "1, 2 or 3"));
  read.clicks = std::clamp(clicks, 1, 3);
  VIMGPT_TRY(const double dx, field(input, "dx", 0.0, "a number of pixels"));
  VIMGPT_TRY(const double dy, field(input, "dy", 0.0, "a number of pixels"));
  read.dx = std::clamp(dx, -kMaxWheel, kMaxWheel);
  read.dy = std::clamp(dy, -kMaxWheel, kMaxWheel);
  VIMGPT_TRY(read.text, field<std::string>(input, "text", "", "text"));
  VIMGPT_TRY(read.keys, field<std::string>(input, "keys", "", "keys, e.g. Control+A"));
  return read;
}

}  // namespace

Result<PageRequest> read_page_request(const Json& message) {
  if (!message.is_object()) return fail(ErrorKind::InvalidArgument, "a message is a JSON object");
  PageRequest request;
  VIMGPT_TRY(request.what, field<std::string>(message, "do", "", "pause, take_over, resume or input"));
  VIMGPT_TRY(request.run, field(message, "run", 0, "the run's number"));
  VIMGPT_TRY(request.answer, field<std::string>(message, "answer", "", "text"));
  if (request.what == "input") {
    VIMGPT_TRY(request.input, read_input(message.value("input", Json())));
  }
  return request;
}

}  // namespace vimgpt::live
