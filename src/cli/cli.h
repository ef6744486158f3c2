// The command line: parses flags (CLI11), reads configuration (flags > environment > .env > defaults),
// wires the modules and prints progress. Exit codes: 0 done, 1 error, 2 budget exhausted, 3 stuck,
// 4 needs input, 5 diverged (replay), 6 answer invalid (--output-schema), 130 interrupted, 64 usage.
#pragma once

namespace vimgpt::cli {

inline constexpr int kExitUsage = 64;

int main(int argc, char** argv);

}  // namespace vimgpt::cli
