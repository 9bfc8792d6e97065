#!/usr/bin/env bash
# Target benchmark (issue 23): `check --target T` against the same `check` without a target, side by
# side in one run (hyperfine, alternating), on the 99,001-node wide graph of bench/onnx (a GPU target and a
# DLA target: every main-graph node placed) and on torchvision resnet18 from the model cache.
# Usage: bench/targets/run.sh [OUT_DIR]  (default bench/out). Needs build/trtlens, Debian's python3-onnx, hyperfine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$root/bench/onnx/gen_models.py" "$out" --only wide
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
# One hyperfine run of both commands; prints mean wall seconds of each and the ratio.
pair() {
  local runs=$1 model=$2; shift 2
  local json; json=$(mktemp)
  hyperfine -i -N --warmup 1 --runs "$runs" --style none --export-json "$json" \
    "$trtlens check $model $* --format json" "$trtlens check $model $* --format json --target $TARGET" > /dev/null 2>&1
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; a,b=r[0]["mean"],r[1]["mean"]; print("%-14s %-10s %8.3f %8.3f %6.3f" % (sys.argv[2], sys.argv[3], a, b, b/a))' "$json" "$(basename "$model")" "$TARGET"
  rm -f "$json"
}
printf "%-14s %-10s %8s %8s %6s\n" model target "plain s" "target s" ratio
TARGET=a100 pair 5 "$out/wide.onnx" --trt 10.8 --precision fp8
TARGET=orin-dla pair 5 "$out/wide.onnx" --trt 8.5 --precision fp16
cache=$root/build/model-cache/resnet18_op17.onnx
if [ -f "$cache" ]; then
  TARGET=orin-dla pair 20 "$cache" --trt 8.5 --precision fp16
fi
