// Private to src/live: what a page sends, read at the door. A page is not trusted to send what it should (it is a
// browser tab anyone with the token can script): every field is checked for its type here, so nothing past this point
// reads a JSON value of a type it did not expect (nlohmann's value() throws then, and a throw would end the run).
#pragma once

#include <optional>
#include <string>

#include "browser/browser.h"
#include "common/result.h"
#include "wire/wire.h"

namespace vimgpt::live {

using Json = wire::Json;

// One of the person's inputs while the page is theirs: a point is a fraction (0 to 1) of the image they clicked.
struct PersonInput {
  enum class Kind { Click, Wheel, Text, Key };
  Kind kind = Kind::Click;
  double x = 0;
  double y = 0;
  browser::MouseButton button = browser::MouseButton::Left;
  int clicks = 1;  // 1 to 3
  double dx = 0;   // a wheel turn, in CSS pixels (at most kMaxWheel either way)
  double dy = 0;
  std::string text;  // typed or pasted
  std::string keys;  // "Control+A"
};

// What a page asks: {"do": "pause" | "take_over" | "resume" | "input", "run": N, "answer": "...", "input": {...}}.
struct PageRequest {
  std::string what;
  int run = 0;
  std::string answer;                // with resume, for an ask
  std::optional<PersonInput> input;  // with input
};

inline constexpr double kMaxWheel = 10000;

// The request in a page's message, or InvalidArgument saying what is wrong, in words for the page to show.
Result<PageRequest> read_page_request(const Json& message);

}  // namespace vimgpt::live
