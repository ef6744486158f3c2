// Private: reaching the world an element lives in.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints::detail {

// Evaluates in the isolated world of the frame the hint lives in (looked up when called).
Evaluator evaluator_for(browser::Tab& tab, const Hint& hint);

// Has every document the tab loads from now on start with the hint library (browser::Tab::preload).
Status preload_library(browser::Tab& tab);

std::optional<browser::ChildFrame> child_frame(browser::Tab& tab, std::string_view session_id);

}  // namespace vimgpt::hints::detail
