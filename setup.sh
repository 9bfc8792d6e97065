#!/usr/bin/env bash
# Installs every package trtlens needs on a fresh Debian 12 machine, then builds.
# Usage: ./setup.sh            (re-running is cheap: apt and npm skip what is there)
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  build-essential cmake pkg-config git python3
  libonnx-dev libonnx-testdata python3-onnx libprotobuf-dev protobuf-compiler
  libcli11-dev libfmt-dev nlohmann-json3-dev libsimdjson-dev libgraphviz-dev graphviz
  libarchive-dev libcpp-httplib-dev libabsl-dev libre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev llvm
  chromium chromium-driver
  hyperfine time
  libsqlite3-dev libpq-dev libsodium-dev postgresql
  python3-torch python3-torchvision
  python3-jsonschema
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js drives the browser tests; any install that provides npm will do.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Browser-test driver (playwright-core drives Debian's /usr/bin/chromium; it downloads no browser).
if [ -f tests/browser/package.json ]; then
  (cd tests/browser && npm install --no-audit --no-fund --loglevel=error)
fi
# ONNX Runtime for the partition chain test: the CPU binaries ship in the package; its
# install script only fetches CUDA binaries, hence --ignore-scripts.
if [ -f tests/ort/package.json ]; then
  (cd tests/ort && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
echo "setup: done; run the tests with: ctest --test-dir build --output-on-failure"
