#!/usr/bin/env bash
# Fails on unformatted files (clang-format, 120 columns) and on clang-tidy findings in src/.
#   scripts/lint.sh BUILD_DIR      (BUILD_DIR holds compile_commands.json)
#   scripts/lint.sh --fix          reformat in place instead of checking
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t sources < <(git ls-files --cached --others --exclude-standard -- 'src/*.cpp' 'src/*.h' \
  'tests/*.cpp' 'tests/*.h' 'bench/*.cpp' 'fuzz/*.cpp' | while read -r f; do [[ -f $f ]] && echo "$f"; done)

if [[ ${1:-} == --fix ]]; then
  clang-format -i "${sources[@]}"
  exit 0
fi

build=${1:?usage: scripts/lint.sh BUILD_DIR | --fix}
if ! clang-format --dry-run --Werror "${sources[@]}" 2>/tmp/vimgpt-format.log; then
  grep -E '^[^ ].*(warning|error):' /tmp/vimgpt-format.log | cut -d: -f1 | sort -u | sed 's/^/unformatted: /' >&2
  echo "lint: run scripts/lint.sh --fix to format these files" >&2
  exit 1
fi

# The hint library (src/hints/js): each part parses, and the joined script vimgpt embeds passes ESLint
# (Debian's eslint; its modules live in /usr/share/nodejs, which a Node from elsewhere does not search).
for part in src/hints/js/*.js "$build/generated/hint_library.js"; do node --check "$part"; done
NODE_PATH=/usr/share/nodejs eslint --no-eslintrc -c src/hints/js/eslintrc.json -f unix "$build/generated/hint_library.js"

# Each protocol is spoken by its own engine only (Playwright's rule: engine folders are reached through one place).
# DevTools methods: the CDP engine (src/browser/cdp), the wire (its liveness probe) and Chromium's launch.
if grep -rnE '"(Browser|DOM|DOMDebugger|Emulation|Fetch|Input|Inspector|Network|Page|Runtime|Target)\.[a-z][A-Za-z]+"' src \
  --include='*.cpp' --include='*.h' --include='*.inc' | grep -vE '^src/(browser/cdp/|wire/|launch/chromium\.cpp)' >&2; then
  echo "lint: DevTools methods named outside src/browser/cdp (above): add a call to browser::Tab instead" >&2
  exit 1
fi
# WebDriver BiDi methods and events: the BiDi engine (src/browser/bidi), Firefox's launch (its prefs look alike; its
# profile template opens and closes a session), and a running Firefox's socket (src/fleet/bidi_socket.cpp: the session
# that connection is, opened and ended).
if grep -rnE '"(browsingContext|script|network|input|session|browser|emulation|storage|log|permissions|webExtension)\.[a-z][A-Za-z]+"' \
  src --include='*.cpp' --include='*.h' --include='*.inc' |
  grep -vE '^src/(browser/bidi/|launch/firefox(_profile)?\.cpp|fleet/bidi_socket\.cpp)' >&2; then
  echo "lint: WebDriver BiDi methods named outside src/browser/bidi (above): add a call to browser::Tab instead" >&2
  exit 1
fi
# The engines' headers are included by the engines themselves and by the surface's one chooser (engines.cpp) only.
if grep -rnE '#include "browser/(cdp|bidi)/' src tests bench fuzz examples \
  | grep -vE '^src/browser/((cdp|bidi)/|engines\.cpp:)' >&2; then
  echo "lint: an engine's header included outside src/browser (above): use browser/browser.h" >&2
  exit 1
fi

mapfile -t tidy_sources < <(printf '%s\n' "${sources[@]}" | grep -E '^src/.*\.cpp$')
# Each file is checked once per input: scripts/tidy.py records the files it finds clean under a hash of what the
# compiler reads, the checks and clang-tidy's version (in BUILD_DIR; scripts/tidy-clean.txt, committed, is read too),
# and checks the rest on every core.
if ! python3 scripts/tidy.py "$build" "${tidy_sources[@]}"; then
  echo "lint: clang-tidy found problems in src/ (see above)" >&2
  exit 1
fi
