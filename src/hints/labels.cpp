// Vimium's label algorithm and the matching of a model's reply to a label.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "hints/hints.h"

namespace vimgpt::hints {

std::vector<std::string> label_strings(std::size_t count, std::string_view alphabet) {
  // With one character every label would be a prefix of the next: Vimium would loop forever.
  if (alphabet.size() < 2) return {};
  // Vimium: start from [""]; take the next string as a prefix and put every character in front of it,
  // until enough strings lie past the consumed prefixes.
  std::vector<std::string> labels{""};
  std::size_t offset = 0;
  while (labels.size() - offset < count || labels.size() == 1) {
    const std::string prefix = labels[offset++];
    for (const char c : alphabet) labels.push_back(c + prefix);
  }
  std::vector<std::string> picked(labels.begin() + static_cast<std::ptrdiff_t>(offset),
                                  labels.begin() + static_cast<std::ptrdiff_t>(offset + count));
  // Sorting and then reversing each string scatters labels that share a first character.
  std::sort(picked.begin(), picked.end());
  for (auto& label : picked) std::reverse(label.begin(), label.end());
  return picked;
}

std::vector<std::string> label_strings(std::size_t count, LabelStyle style) {
  if (style == LabelStyle::Letters) return label_strings(count);
  std::vector<std::string> numbers;
  numbers.reserve(count);
  for (std::size_t i = 0; i < count; ++i) numbers.push_back(std::to_string(i));
  return numbers;
}

namespace {
bool is_wrapping(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("'\"`[](){}<>").find(c) != std::string_view::npos;
}
}  // namespace

std::string normalize_label(std::string_view reply) {
  while (!reply.empty() && is_wrapping(reply.front())) reply.remove_prefix(1);
  while (!reply.empty() && is_wrapping(reply.back())) reply.remove_suffix(1);
  std::string label(reply);
  for (auto& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return label;
}

}  // namespace vimgpt::hints
