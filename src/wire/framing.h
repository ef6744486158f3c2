// Splits the --remote-debugging-pipe byte stream into messages: each JSON message ends with a NUL byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vimgpt::wire {

class NulFramer {
 public:
  // Appends bytes as they arrive and moves every completed message into `out`.
  void feed(std::string_view bytes, std::vector<std::string>& out);
  [[nodiscard]] std::size_t buffered() const { return partial_.size(); }

 private:
  std::string partial_;
};

}  // namespace vimgpt::wire
