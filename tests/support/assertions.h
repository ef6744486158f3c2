// Assertions on Result/Status that print the error when they fail.
#pragma once

#include <gtest/gtest.h>

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
