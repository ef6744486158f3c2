#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz and runs each for SECONDS (default 600),
# seeded from fuzz/corpus/<target>; afterwards that corpus is replaced by a minimised merge of it and what the
# run found (same coverage, few files). Exit status is non-zero when a target crashes or a sanitizer
# reports; the crashing input is left in build-fuzz/artifacts/.
#
#   scripts/fuzz.sh            # every target, 10 minutes each
#   scripts/fuzz.sh 60 reply   # one target, one minute
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${VIMGPT_FUZZ_BUILD:-$ROOT/build-fuzz}
SECONDS_EACH=${1:-600}
shift || true
TARGETS=("${@:-reply cdp_reader mcp_reader}")
read -r -a TARGETS <<<"${TARGETS[*]}"

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DVIMGPT_BUILD_FUZZ=ON -DVIMGPT_BUILD_TESTS=OFF -DVIMGPT_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" --target "${TARGETS[@]/%/_fuzz}"

mkdir -p "$BUILD/artifacts"
for target in "${TARGETS[@]}"; do
  seeds=$ROOT/fuzz/corpus/${target%_reader}
  work=$BUILD/corpus/$target
  mkdir -p "$work"
  echo "== $target: ${SECONDS_EACH}s, seeds in $seeds" >&2
  # New inputs go to the working corpus; the kept one in fuzz/ is re-minimised from it afterwards.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/fuzz/${target}_fuzz" -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/${target}-" "$work" "$seeds" 2>&1 | tail -n 25
  [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "== $target failed: see $BUILD/artifacts" >&2; exit 1; }
  minimised=$BUILD/corpus/$target.min
  rm -rf "$minimised" && mkdir -p "$minimised"
  "$BUILD/fuzz/${target}_fuzz" -merge=1 -max_len=65536 "$minimised" "$seeds" "$work" 2>/dev/null
  rm -rf "$seeds" && mv "$minimised" "$seeds"
  echo "== $target: $(ls "$seeds" | wc -l) inputs kept in $seeds" >&2
done
