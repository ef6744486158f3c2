// What a test cannot or does not yet do on one engine: tests/engine_expectations.txt, a line a test (or a gtest
// pattern), with its reason. CMake reads the same file to leave does-not-apply tests out of an engine's CTest
// entries; the tests' main (test_main.cpp) leaves them out too when an executable is run by hand, and holds
// known-gap tests to failing: one that passes fails the run, so the list cannot keep a gap that has closed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace vimgpt::test {

enum class Expectation { DoesNotApply, KnownGap };

struct ExpectationLine {
  int line = 0;
  std::string engine;  // "chromium" or "firefox"
  Expectation kind = Expectation::KnownGap;
  std::string pattern;  // Suite.Test, * and ? as in --gtest_filter
  std::string reason;
};

struct EngineExpectations {
  std::vector<ExpectationLine> lines;
  std::string error;  // a line that does not parse: the run fails on it
};

EngineExpectations read_engine_expectations(const std::filesystem::path& file);
// gtest's filter syntax for one pattern: * any run of characters, ? one character.
bool matches_pattern(std::string_view pattern, std::string_view name);
// The first line for this engine and test, or nullptr.
const ExpectationLine* expectation_for(const EngineExpectations& all, std::string_view engine, std::string_view test);

}  // namespace vimgpt::test
