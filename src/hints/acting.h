// Private: what acting on a label takes, shared by clicks and choices (act.cpp) and the other gestures
// (gestures.cpp): the hint a reply names, the element's reply checked, and where to point at it.
#pragma once

#include <string_view>

#include "hints/frames.h"
#include "hints/hints.h"

namespace vimgpt::hints::detail {

// The hint `label` names; NotFound naming the labels near it.
Result<const Hint*> resolve(const HintMap& map, std::string_view label);
// A library reply about an element: NotFound when the element went stale or gone.
Status check_reply(const browser::Json& reply, const Hint& hint);
// The arguments that name an element to the library: its pass and index.
browser::Json element_args(const HintMap& map, const Hint& hint);
// A point of the frame the hint lives in, in main-viewport CSS px (an out-of-process frame's moved by its
// owner's box, the frame scrolled into the main viewport first when needed: `scrolled`).
Result<browser::Point> in_main_viewport(browser::Tab& tab, const Hint& hint, browser::Point point, bool& scrolled);
// Where the element can be clicked, in main-viewport CSS px (scrolled into view when needed); the library's
// reply (its kind: click, text, select, choice; whether it scrolled).
Result<browser::Json> locate(browser::Tab& tab, const HintMap& map, const Hint& hint, browser::Point& point);

}  // namespace vimgpt::hints::detail
