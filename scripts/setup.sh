#!/usr/bin/env bash
# Installs the Debian packages vimgpt needs: with --run (scripts/run.sh) what building and running it needs, and
# nothing else; without (scripts/test.sh) also what its tests and benchmarks need.
# Idempotent: quiet when everything is present; runs `apt-get update` once, only when something is missing.
set -euo pipefail

# What running vimgpt needs: building it (toolchain and libraries, and npm below for the JavaScript it embeds) and the
# browser it drives (the headless shell for headless runs, the full Chromium for --headed and --extension). Nothing
# here starts a service.
run_packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config
  # libraries
  nlohmann-json3-dev libcurl4-openssl-dev libcli11-dev libboost-dev libssl-dev
  libstb-dev libturbojpeg0-dev fonts-dejavu-core
  portaudio19-dev libpocketsphinx-dev pocketsphinx-en-us libespeak-ng-dev libsndfile1-dev libsamplerate0-dev
  # JSON Schema validation for --output-schema (header-only; the package pulls in the JSON libraries it adapts)
  libvalijson-dev
  # the shared task queue's client library (batch --queue)
  libhiredis-dev
  # the config files' TOML parser (toml++, compiled in header-only)
  libtomlplusplus-dev
  # which hosts are one site, by the Public Suffix List (--confirm-risky); publicsuffix is the list it reads
  libpsl-dev publicsuffix
  # the tokenizer's pattern, with Unicode properties (a budget counts a request's text as the model does)
  libpcre2-dev
  # the browser: the headless shell for headless runs, the full one for --headed and --extension
  chromium chromium-headless-shell
  # PDFs shown as pages (pdfinfo, pdftohtml: run as programs, never linked)
  poppler-utils
)
# What the tests and benchmarks add (scripts/test.sh): lint, test libraries, the second engine and the virtual
# display, the servers the tests start on loopback (Debian starts redis-server and munge as services when they are
# installed: the run command leaves them out for that reason too), and Node for the interoperability clients.
test_packages=(
  clang-format clang-tidy clang libclang-rt-dev
  # tests and benchmarks (Node runs the hint library's own tests; ESLint checks it; tesseract reads the labels
  # and text back from the frames the model is sent)
  libcpp-httplib-dev libgtest-dev libbenchmark-dev espeak-ng sox nodejs eslint tesseract-ocr tesseract-ocr-eng
  json-schema-test-suite
  # the Selenium Grid interoperability test: Grid's jar (npm, tests/interop) runs on Java 17 and drives Chromium
  # through Debian's chromedriver
  openjdk-17-jre-headless chromium-driver
  # the shared task queue's server, which its tests start on loopback
  redis-server
  # the Slurm interoperability test: a one-node cluster on loopback (munge authenticates its daemons)
  slurm-wlm munge
  # Xvfb, the virtual display of --xvfb (the full browser headed on a machine without a display), and the second
  # engine (--engine firefox, over WebDriver BiDi): both work in a run too once installed (apt-get install xvfb
  # firefox-esr), and the run says so when they are missing
  xvfb firefox-esr
)

packages=("${run_packages[@]}")
[[ ${1:-} == --run ]] || packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm installs the pinned packages: autoconsent, which the build embeds (src/consent), and the interoperability tests'
# and benchmarks' clients; Debian's, unless the Node.js already here brings its own (NodeSource's nodejs conflicts with
# Debian's npm package).
command -v npm >/dev/null 2>&1 || missing+=(npm)
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages: ${missing[*]}" >&2
  echo "setup: run this script as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "setup: installing ${#missing[@]} packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
