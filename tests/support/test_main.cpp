// The main of every C++ test executable (in place of gtest_main): runs the tests with the engine's expectations
// (tests/engine_expectations.txt). On the engine VIMGPT_TEST_ENGINE names, a does-not-apply test is left out and a
// known-gap test must fail: the run fails when one passes (the gap has closed: its line goes), and when any other
// test fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "support/engine_expectations.h"

namespace {

using vimgpt::test::Expectation;

std::string engine_name() {
  const char* name = std::getenv("VIMGPT_TEST_ENGINE");
  return name != nullptr && std::string(name) == "firefox" ? "firefox" : "chromium";
}

// Adds the engine's does-not-apply patterns to --gtest_filter's negative half.
void leave_out(const vimgpt::test::EngineExpectations& expectations, const std::string& engine) {
  std::string negative;
  for (const auto& line : expectations.lines)
    if (line.engine == engine && line.kind == Expectation::DoesNotApply) negative += ":" + line.pattern;
  if (negative.empty()) return;
  std::string filter = GTEST_FLAG_GET(filter);
  filter += filter.find('-') == std::string::npos ? "-" + negative.substr(1) : negative;
  GTEST_FLAG_SET(filter, filter);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const auto expectations = vimgpt::test::read_engine_expectations(VIMGPT_ENGINE_EXPECTATIONS);
  if (!expectations.error.empty()) {
    std::cerr << expectations.error << "\n";
    return 1;
  }
  const std::string engine = engine_name();
  // CTest's discovery lists an executable's tests without the engine's environment: CMake leaves that engine's
  // does-not-apply tests out of the list itself.
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
  leave_out(expectations, engine);
  // The verdict is ours, below: gtest's counts a known gap's expected failure as a failure.
  [[maybe_unused]] const int gtest_verdict = RUN_ALL_TESTS();

  const auto& unit = *::testing::UnitTest::GetInstance();
  bool failed = unit.ad_hoc_test_result().Failed();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const auto& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const auto& test = *suite.GetTestInfo(j);
      if (!test.should_run()) continue;
      const std::string name = std::string(test.test_suite_name()) + "." + test.name();
      const bool test_failed = test.result()->Failed() || suite.ad_hoc_test_result().Failed();
      const auto* line = vimgpt::test::expectation_for(expectations, engine, name);
      if (line == nullptr || line->kind != Expectation::KnownGap) {
        failed = failed || test_failed;
      } else if (test_failed) {
        std::cout << "[ KNOWN GAP ] " << name << " failed on " << engine << ", as expected: " << line->reason << "\n";
      } else if (!test.result()->Skipped()) {
        std::cout << "[ GAP CLOSED] " << name << " passed on " << engine << " under a known-gap line: remove line "
                  << line->line << " of tests/engine_expectations.txt (" << line->pattern << ")\n";
        failed = true;
      }
    }
  }
  return failed ? 1 : 0;
}
