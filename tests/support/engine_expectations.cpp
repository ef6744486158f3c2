#include "support/engine_expectations.h"

#include <fstream>
#include <sstream>

namespace vimgpt::test {

EngineExpectations read_engine_expectations(const std::filesystem::path& file) {
  EngineExpectations out;
  std::ifstream in(file);
  if (!in) {
    out.error = "cannot read " + file.string();
    return out;
  }
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    const auto start = text.find_first_not_of(" \t");
    if (start == std::string::npos || text[start] == '#') continue;
    std::istringstream words(text);
    ExpectationLine line;
    std::string kind;
    words >> line.engine >> kind >> line.pattern;
    std::getline(words >> std::ws, line.reason);
    line.line = number;
    if (kind == "does-not-apply")
      line.kind = Expectation::DoesNotApply;
    else if (kind != "known-gap")
      out.error = file.string() + ":" + std::to_string(number) + ": the kind is does-not-apply or known-gap";
    if ((line.engine != "chromium" && line.engine != "firefox") || line.pattern.find('.') == std::string::npos ||
        line.reason.empty())
      out.error = file.string() + ":" + std::to_string(number) + ": want ENGINE KIND Suite.Test REASON";
    if (!out.error.empty()) return out;
    out.lines.push_back(std::move(line));
  }
  return out;
}

bool matches_pattern(std::string_view pattern, std::string_view name) {
  // Iterative glob with one backtrack point, as gtest's own matcher.
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

const ExpectationLine* expectation_for(const EngineExpectations& all, std::string_view engine, std::string_view test) {
  for (const auto& line : all.lines)
    if (line.engine == engine && matches_pattern(line.pattern, test)) return &line;
  return nullptr;
}

}  // namespace vimgpt::test
