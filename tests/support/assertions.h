// Assertions on Result/Status that print the error when they fail.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#define ASSERT_OK(expr)                                             \
  do {                                                              \
    const auto& vimgpt_result = (expr);                             \
    ASSERT_TRUE(vimgpt_result) << vimgpt_result.error().describe(); \
  } while (false)
#define EXPECT_OK(expr)                                             \
  do {                                                              \
    const auto& vimgpt_result = (expr);                             \
    EXPECT_TRUE(vimgpt_result) << vimgpt_result.error().describe(); \
  } while (false)

namespace vimgpt::test {

// Whether a recorded field (a step's result, url, ...) is a string holding `text`.
inline bool has(const nlohmann::json& value, std::string_view text) {
  return value.is_string() && value.get<std::string>().find(text) != std::string::npos;
}

// The run's page-data fence marker in a prompt (common/fence.h: "<<<page-data MARKER>>>"), or empty.
inline std::string fence_marker(const std::string& prompt) {
  const auto named = prompt.find("<<<page-data ");
  const auto ends = named == std::string::npos ? named : prompt.find(">>>", named);
  return ends == std::string::npos ? std::string() : prompt.substr(named + 13, ends - named - 13);
}

// Whether `order` stands in `prompt` inside the run's fence: after an opening line and before the next closing one.
// A page that writes a closing line of its own (with a guessed marker) is still inside.
inline ::testing::AssertionResult inside_fence(const std::string& prompt, std::string_view order) {
  const std::string marker = fence_marker(prompt);
  if (marker.empty()) return ::testing::AssertionFailure() << "no fence in: " << prompt;
  const auto at = prompt.find(order);
  if (at == std::string::npos) return ::testing::AssertionFailure() << "'" << order << "' is not in: " << prompt;
  const auto opened = prompt.rfind("<<<page-data " + marker + ">>>", at);
  const auto closed = prompt.rfind("<<<end-page-data " + marker + ">>>", at);
  if (opened == std::string::npos || (closed != std::string::npos && closed > opened)) {
    return ::testing::AssertionFailure() << "'" << order << "' is outside the fence: " << prompt;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace vimgpt::test
