// What the benchmarks' scripted models read from vimgpt's prompt (--observe hybrid): the label of an element by the
// words of its line in the hint list.
#pragma once

#include <sstream>
#include <string>

namespace vimgpt::bench {

// The label of the hint-list line containing `needle` ("[AB] link \"Next: part 3\" -> /step/3"); empty when none.
inline std::string label_in_hint_text(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) == std::string::npos) continue;
    const auto open = line.find('[');
    const auto close = line.find(']', open);
    if (open != std::string::npos && close != std::string::npos) return line.substr(open + 1, close - open - 1);
  }
  return {};
}

}  // namespace vimgpt::bench
