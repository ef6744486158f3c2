#!/usr/bin/env bash
# Installs the npm package the build embeds (src/consent: DuckDuckGo's autoconsent, as its committed package-lock pins
# it), when it is missing or older than the lock. CMake reads it when it configures a build folder: a folder configured
# without it builds without it (cmake -S . -B BUILD again once it is here).
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/src/consent"
if [[ ! -d $dir/node_modules || $dir/package-lock.json -nt $dir/node_modules ]]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  touch "$dir/node_modules"
fi
