#!/usr/bin/env bash
# The one test command (README, CI): installs what is missing, builds with warnings as errors, checks formatting and
# clang-tidy (beside the tests), and runs every test (unit, browser, e2e, each browser and e2e test on Chromium and
# Firefox) with CTest, under AddressSanitizer and UndefinedBehaviorSanitizer (leaks included): a memory error anywhere
# in vimgpt fails the suite.
#   scripts/test.sh                        everything
#   scripts/test.sh -L unit                only tests with a label: unit, browser, firefox, e2e, interop (any ctest
#                                          arguments pass through)
#   VIMGPT_SANITIZE=OFF scripts/test.sh    the same on a plain optimised build (build-test)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/npm_embedded.sh
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
# The build links about 80 executables (a test file each): lld when the machine has it, else gold (binutils), both
# quicker than GNU ld on these static libraries with debug info (mcp_test: 7.0 CPU-s with ld, 3.9 gold, 2.2 lld).
linker=bfd
if command -v ld.lld >/dev/null 2>&1; then linker=lld; elif command -v ld.gold >/dev/null 2>&1; then linker=gold; fi
# Clang (setup.sh installs it for the fuzz build and clang-tidy) compiles this build in two thirds of GCC's time (631
# against 905 s on two cores), Boost.Beast's files in half, and its sanitized vimgpt starts in a third of the time.
# CMake reads CC and CXX only when it first configures a build folder: one made with GCC stays GCC's.
if command -v clang++ >/dev/null 2>&1; then export CC=clang CXX=clang++; fi
# Unity files: each module's sources compiled eight to a file, so the headers they share (Boost.Beast, nlohmann/json,
# the modules' own) are read once a file rather than once a source (tests/ and fuzz/ keep one file a target). The
# release build (scripts/run.sh) compiles each source on its own, so a source that leans on a neighbour's includes
# still fails there; scripts/tidy.py checks each source on its own in either build.
cmake -S . -B "$build" -G Ninja "${config[@]}" -DVIMGPT_WERROR=ON -DVIMGPT_BUILD_BENCH=OFF -DVIMGPT_WITH_ESPEAK=ON \
  -DCMAKE_UNITY_BUILD=ON "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=$linker" >/dev/null
cmake --build "$build" -j"$jobs"

# Lint (clang-format, ESLint, clang-tidy over src/: each file once per input, scripts/tidy.py; all of src/ is about 780
# CPU-seconds when nothing is recorded) runs beside the tests at the lowest priority, on the CPU they leave idle. Its
# verdict is awaited, and counts, at the end.
lint_log=$(mktemp)
nice -n 19 scripts/lint.sh "$build" >"$lint_log" 2>&1 &
lint=$!

status=0
(cd "$build" && ctest --output-on-failure -j"$jobs" --timeout 300 "$@") || status=$?
lint_status=0
wait "$lint" || lint_status=$?
cat "$lint_log" >&2
rm -f "$lint_log"
if ((lint_status != 0)); then
  echo "test: lint failed (above)" >&2
  ((status != 0)) || status=$lint_status
fi
exit "$status"
