// Private: reaching the world an element lives in, and where an out-of-process frame sits in the main
// viewport.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints::detail {

// The content box of a frame's owner <iframe>, in main-viewport CSS px.
struct FrameBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
  int owner_backend_node = 0;
  std::string owner_session;  // the session whose DOM holds the owner element (empty: the main one)
};

// DOM.getFrameOwner + DOM.getBoxModel, walking up through parent out-of-process frames.
Result<FrameBox> frame_box(browser::Tab& tab, std::string_view frame_id);
// Scrolls the frame's owner element into the main viewport.
Status scroll_into_view(browser::Tab& tab, const FrameBox& box);

// Evaluates in the isolated world of the frame the hint lives in (looked up when called).
Evaluator evaluator_for(browser::Tab& tab, const Hint& hint);

// Has every document the tab loads from now on start with the hint library (browser::Tab::preload).
Status preload_library(browser::Tab& tab);

std::optional<browser::ChildFrame> child_frame(browser::Tab& tab, std::string_view session_id);

}  // namespace vimgpt::hints::detail
