#include "wire/framing.h"

namespace vimgpt::wire {

void NulFramer::feed(std::string_view bytes, std::vector<std::string>& out) {
  while (!bytes.empty()) {
    const auto end = bytes.find('\0');
    if (end == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    partial_.append(bytes.substr(0, end));
    out.push_back(std::move(partial_));
    partial_.clear();
    bytes.remove_prefix(end + 1);
  }
}

}  // namespace vimgpt::wire
