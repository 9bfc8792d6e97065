#!/usr/bin/env bash
# Page generation time and browser time-to-interactive of `trtlens report` on a
# 10,000-node transformer-like model. Usage: bench/report/run.sh [build dir] [nodes]
# Needs python3-onnx, hyperfine, /usr/bin/chromium and tests/browser/node_modules
# (setup.sh installs all of them). Writes into bench/out/report/ (not committed).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
nodes="${2:-10000}"
out="$root/bench/out/report"
mkdir -p "$out"
python=/usr/bin/python3; [ -x "$python" ] || python=python3
model="$out/model$nodes.onnx"
page="$out/model$nodes.html"

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" "$root/bench/report/make_model.py" "$model" "$nodes"
echo "== page generation (load, 198 annotations, layout, HTML)"
hyperfine --warmup 1 --runs 5 --export-markdown "$out/generation.md" "$build/trtlens report $model -o $page"
/usr/bin/time -f "one run: %e s wall, %U s user, %S s sys, %M KB max resident" "$build/trtlens" report "$model" -o "$page"
echo "page size: $(stat -c %s "$page") bytes"
echo "== single runtime, for comparison: trtlens check"
/usr/bin/time -f "check: %e s wall, %U s user" "$build/trtlens" check "$model" --trt 10.13 --precision fp16 > /dev/null || true
echo "== headless Chromium"
node "$root/bench/report/measure.mjs" "$page" 5
