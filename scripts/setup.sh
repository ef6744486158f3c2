#!/usr/bin/env bash
# Installs every Debian package vimgpt needs to build, run, test and benchmark.
# Idempotent: quiet when everything is present; runs `apt-get update` once, only when something is missing.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang-format clang-tidy clang libclang-rt-dev
  # libraries
  nlohmann-json3-dev libcurl4-openssl-dev libcli11-dev libboost-dev libssl-dev
  libstb-dev libturbojpeg0-dev fonts-dejavu-core
  portaudio19-dev libpocketsphinx-dev pocketsphinx-en-us libespeak-ng-dev libsndfile1-dev libsamplerate0-dev
  # JSON Schema validation for --output-schema (header-only; the package pulls in the JSON libraries it adapts)
  libvalijson-dev
  # tests and benchmarks (Node runs the hint library's own tests; ESLint checks it; tesseract reads the labels
  # and text back from the frames the model is sent)
  libcpp-httplib-dev libgtest-dev libbenchmark-dev espeak-ng sox nodejs eslint tesseract-ocr tesseract-ocr-eng
  json-schema-test-suite
  # the Selenium Grid interoperability test: Grid's jar (npm, tests/interop) runs on Java 17 and drives Chromium
  # through Debian's chromedriver
  openjdk-17-jre-headless chromium-driver
  # the shared task queue (batch --queue): its client library, and the server its tests start on loopback
  libhiredis-dev redis-server
  # the Slurm interoperability test: a one-node cluster on loopback (munge authenticates its daemons)
  slurm-wlm munge
  # the browser: the full one for --headed, --xvfb and --extension, the headless shell for everything else; Xvfb is the
  # virtual display of --xvfb (the full browser headed on a machine without a display)
  chromium chromium-headless-shell xvfb
  # the second engine (--engine firefox), spoken to over WebDriver BiDi
  firefox-esr
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm installs the pinned packages of the interoperability test and the benchmarks: Debian's, unless the Node.js
# already here brings its own (NodeSource's nodejs conflicts with Debian's npm package).
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
