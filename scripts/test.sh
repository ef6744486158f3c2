#!/usr/bin/env bash
# The one test command (README, CI): installs what is missing, builds with warnings as errors, checks
# formatting and clang-tidy, and runs every test (unit, browser, e2e) with CTest, under AddressSanitizer and
# UndefinedBehaviorSanitizer (leaks included): a memory error anywhere in vimgpt fails the suite.
#   scripts/test.sh                        everything
#   scripts/test.sh -L unit                only tests with a label: unit, browser, firefox, e2e, interop (any ctest
#                                          arguments pass through)
#   VIMGPT_SANITIZE=OFF scripts/test.sh    the same on a plain optimised build (build-test)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The official clients of the interoperability tests (the MCP SDK; Playwright Test, which runs an exported run),
# as pinned by their package-lock.
if [[ ! -d tests/interop/node_modules || tests/interop/package-lock.json -nt tests/interop/node_modules ]]; then
  (cd tests/interop && npm ci --no-audit --no-fund --loglevel=error)
  touch tests/interop/node_modules
fi

sanitize=${VIMGPT_SANITIZE:-ON}
jobs=$(nproc)
if [[ $sanitize == ON ]]; then
  # -O1: compiles faster than -O2 and keeps the sanitized vimgpt quick enough for the browser tests' deadlines.
  build=build-asan
  config=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" -DVIMGPT_SANITIZE=ON)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
  build=build-test
  config=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIMGPT_SANITIZE=OFF)
fi

# -DVIMGPT_WITH_ESPEAK=ON links espeak-ng (GPL-3.0-or-later), so the speaking code (--speak, --speak-to) stays tested;
# these test builds are never distributed. The default build (scripts/run.sh) leaves it out; a test build without it
# checks the error that says so instead (tests/unit/voice_stt_test.cpp).
cmake -S . -B "$build" -G Ninja "${config[@]}" -DVIMGPT_WERROR=ON -DVIMGPT_BUILD_BENCH=OFF -DVIMGPT_WITH_ESPEAK=ON \
  >/dev/null
cmake --build "$build" -j"$jobs"

scripts/lint.sh "$build"

cd "$build"
ctest --output-on-failure -j"$jobs" --timeout 300 "$@"
