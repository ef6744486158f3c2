#!/usr/bin/env bash
# Installs the npm packages the build embeds, as their committed package-locks pin them, when one is missing or older
# than its lock: src/consent (DuckDuckGo's autoconsent) and src/vision/tokenizer (js-tiktoken's o200k_base ranks).
# CMake reads them when it configures a build folder: a folder configured without one builds without it (cmake -S . -B
# BUILD again once it is here).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for dir in "$root/src/consent" "$root/src/vision/tokenizer"; do
  if [[ ! -d $dir/node_modules || $dir/package-lock.json -nt $dir/node_modules ]]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$dir/node_modules"
  fi
done
