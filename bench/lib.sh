# What the bench scripts share (sourced, not run): where the build goes, the Release build, the pinned npm
# packages, and the agent task's loopback world (agent_bench --serve: the site and the fake models).
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${VIMGPT_BENCH_BUILD:-$ROOT/build-bench}

# Builds TARGETS ("all": everything) in Release into $BUILD; the build's own output goes to stderr. A folder given in
# VIMGPT_BENCH_BUILD that is configured already is built as it is, in its own build type.
release_build() {  # TARGET...
  if [[ -z ${VIMGPT_BENCH_BUILD:-} || ! -f $BUILD/CMakeCache.txt ]]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIMGPT_BUILD_TESTS=OFF \
      -DVIMGPT_BUILD_BENCH=ON >/dev/null
  fi
  cmake --build "$BUILD" -j"$(nproc)" --target "$@" >&2
}

# npm ci into DIR/node_modules when its package-lock is newer (never a browser download: Debian's Chromium is used).
npm_install() {  # DIR
  if [[ ! -d $1/node_modules || $1/package-lock.json -nt $1/node_modules ]]; then
    (cd "$1" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
    touch "$1/node_modules"
  fi
}

# The world runs as the coprocess SERVE until stop_world; WORLD is the JSON line it starts with, and
# `world FIELD` reads one of its fields (start_url, form_url, model_instant, model_slow, ...).
start_world() {
  coproc SERVE { exec "$BUILD/bench/agent_bench" --serve; }
  read -r WORLD <&"${SERVE[0]}"
}
world() { node -e 'const w=JSON.parse(process.argv[1]); console.log(w[process.argv[2]])' "$WORLD" "$1"; }
stop_world() {
  local input=${SERVE[1]}
  exec {input}>&-  # the world ends when its input does
  wait "$SERVE_PID" 2>/dev/null || true
}
