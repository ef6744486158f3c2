#!/usr/bin/env bash
# The one run command (README): installs what is missing, builds in Release, runs vimgpt with your arguments.
#   scripts/run.sh "find the opening hours of the Louvre" [--headed] [--record auto] ...
#   VIMGPT_WITH_ESPEAK=ON scripts/run.sh --speak ...   links espeak-ng for spoken replies: that binary is
#                                                       GPL-3.0-or-later as a whole (THIRD-PARTY-NOTICES.md)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh" --run
"$here/scripts/npm_embedded.sh"
cmake -S "$here" -B "$here/build-release" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIMGPT_BUILD_TESTS=OFF \
  -DVIMGPT_BUILD_BENCH=OFF "-DVIMGPT_WITH_ESPEAK=${VIMGPT_WITH_ESPEAK:-OFF}" >/dev/null
cmake --build "$here/build-release" -j"$(nproc)" --target vimgpt >/dev/null
exec "$here/build-release/vimgpt" "$@"
