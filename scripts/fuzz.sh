#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz and runs each for SECONDS (default 600).
# Three folders of inputs per target:
#   fuzz/corpus/<target>     the seeds in the repository: at most SEEDS_EACH (default 47) inputs, picked one by one
#                            for the edges each adds to the others' (scripts/fuzz_seeds.py), made by --seeds; read,
#                            never written, by a run
#   fuzz/regressions/<target>  inputs that once crashed it, kept whatever they reach; read by every run
#   build-fuzz/corpus/<target>  the working corpus, outside the repository: seeded from the above, grown by each run
#                            (every input that adds a feature, hit counts included) and kept between runs; a run of
#                            a few minutes a target grows it back past what the seeds reach
# Exit status is non-zero when a target crashes or a sanitizer reports; the crashing input is left in
# build-fuzz/artifacts/ (add it to fuzz/regressions/<target> with the fix).
#
#   scripts/fuzz.sh                 # every target, 10 minutes each
#   scripts/fuzz.sh 60 reply        # one target, one minute
#   scripts/fuzz.sh --seeds [reply] # remake the repository's seeds from them and the working corpus (edges only),
#                                   # printing the edges the seeds reach of all the inputs reach
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${VIMGPT_FUZZ_BUILD:-$ROOT/build-fuzz}
mode=run
if [[ ${1:-} == --seeds ]]; then
  mode=seeds
  shift
else
  SECONDS_EACH=${1:-600}
  shift || true
fi
TARGETS=("${@:-reply dialect cdp_reader cdp_events bidi_events mcp_reader live_input config}")
read -r -a TARGETS <<<"${TARGETS[*]}"

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DVIMGPT_BUILD_FUZZ=ON -DVIMGPT_BUILD_TESTS=OFF -DVIMGPT_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" --target "${TARGETS[@]/%/_fuzz}"

# The edges a corpus reaches, as libFuzzer counts them on loading it (the `cov:` of its INITED line), as "LEAST MOST"
# of three loads: the DevTools reader's thread makes a few edges depend on timing (1587 to 1591 of the same corpus).
edges() {
  for _ in 1 2 3; do
    "$BUILD/fuzz/${1}_fuzz" -runs=0 -max_len=65536 "$2" 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' | tail -n 1
  done | sort -n | sed -n '1p;$p' | paste -sd' '
}

mkdir -p "$BUILD/artifacts"
for target in "${TARGETS[@]}"; do
  seeds=$ROOT/fuzz/corpus/${target%_reader}
  work=$BUILD/corpus/$target
  mkdir -p "$work"
  regressions=$ROOT/fuzz/regressions/${target%_reader}
  mkdir -p "$regressions"
  if [[ $mode == seeds ]]; then
    all=$(mktemp -d) merged=$(mktemp -d) control=$(mktemp) fresh=$(mktemp -d)
    # An empty working corpus (no run yet) leaves its glob unmatched: the seeds alone are read then.
    cp -n "$seeds"/* "$work"/* "$all"/ 2>/dev/null || true
    # Edges only (-use_counters=0): an input that only hits a known edge more often is left to the working corpus.
    "$BUILD/fuzz/${target}_fuzz" -merge=1 -use_counters=0 -max_len=65536 -merge_control_file="$control" "$merged" \
      "$all" >/dev/null 2>&1
    echo "== $target: $(python3 "$ROOT/scripts/fuzz_seeds.py" "$control" "${SEEDS_EACH:-47}" 2>&1 >"$fresh.list")" >&2
    xargs -r -d '\n' cp -t "$fresh" <"$fresh.list"
    rm -rf "$seeds" && mv "$fresh" "$seeds" && rm -rf "$all" "$merged" "$control" "$fresh.list"
    continue
  fi
  echo "== $target: ${SECONDS_EACH}s, seeds in $seeds, working corpus in $work" >&2
  # New inputs land in the working corpus (the first directory); the seeds are only read.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/fuzz/${target}_fuzz" -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/${target}-" "$work" "$seeds" "$regressions" 2>&1 | tail -n 25
  [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "== $target failed: see $BUILD/artifacts" >&2; exit 1; }
  echo "== $target: $(ls "$work" | wc -l) inputs in the working corpus, $(edges "$target" "$work" | cut -d' ' -f2) edges" >&2
done
