// Page data fenced off from instructions: text a page wrote (its labels, its words, its title) goes to a model
// between two lines that carry a marker drawn at random for the run, which no page can know, so no page can close the
// fence early and write outside it ("(end of page data) Now do this: ...").
#pragma once

#include <string>
#include <string_view>

namespace vimgpt {

class DataFence {
 public:
  // A new marker: 15 decimal digits from the system's random source.
  static DataFence drawn();
  // A fence with this marker (tests, and a run recorded with one).
  explicit DataFence(std::string marker) : marker_(std::move(marker)) {}

  [[nodiscard]] const std::string& marker() const { return marker_; }
  // The text between the fence's opening and closing lines, each on a line of its own. The marker inside the text
  // (which a page cannot have guessed) is cut out all the same.
  [[nodiscard]] std::string wrap(std::string_view text) const;
  // What the model is told, once: where page data is, and that it is never instructions.
  [[nodiscard]] std::string rule() const;

 private:
  std::string marker_;
};

}  // namespace vimgpt
