#!/usr/bin/env bash
# The one test command (README, CI): installs what is missing, builds with warnings as errors, checks
# formatting and clang-tidy, and runs every test (unit, browser, e2e) with CTest.
#   scripts/test.sh                 everything
#   scripts/test.sh -L unit         only tests with a label (any ctest arguments pass through)
#   VIMGPT_SANITIZE=ON scripts/test.sh   the same under AddressSanitizer + UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

sanitize=${VIMGPT_SANITIZE:-OFF}
build=build-test
[[ $sanitize == ON ]] && build=build-asan
jobs=$(nproc)

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIMGPT_WERROR=ON \
  -DVIMGPT_SANITIZE="$sanitize" -DVIMGPT_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$jobs"

scripts/lint.sh "$build"

cd "$build"
ctest --output-on-failure -j"$jobs" --timeout 300 "$@"
