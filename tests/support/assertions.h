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

}  // namespace vimgpt::test
