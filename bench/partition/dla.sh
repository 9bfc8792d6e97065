#!/usr/bin/env bash
# DLA cut benchmark (issue 23): `partition --target orin-dla` (every TensorRT region cut into DLA
# loadables and GPU regions) against the same `partition` without a target, side by side: the two
# commands alternate N times in one run and their CPU seconds (user + system, steadier than wall time
# on a shared machine) are summed; with -o DIR too (the parts written). On the 99,001-node wide graph
# of bench/onnx (nothing on the DLA: 2-D MatMuls), gen_dla.py's worst cases (a 10,000-node chain that
# alternates DLA and GPU: 5,000 loadables; 1,000 DLA/GPU branches) and torchvision resnet18 /
# mobilenet_v2 of the model cache, at --trt 8.5 --precision fp16.
# Usage: bench/partition/dla.sh [OUT_DIR] [N]  (default bench/out, 5). Needs build/trtlens, python3-onnx.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
n=${2:-5}
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$root/bench/onnx/gen_models.py" "$out" --only wide
[ -f "$out/dla_chain.onnx" ] || /usr/bin/python3 "$here/gen_dla.py" "$out"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ), $n alternations"
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
pair() {
  local model=$1; shift
  local plain=0 with=0
  for _ in $(seq "$n"); do
    rm -rf "$out/dla.parts"
    plain=$(echo "$plain + $(cpu "$trtlens" partition "$model" --trt 8.5 --precision fp16 --format json "$@")" | bc -l)
    rm -rf "$out/dla.parts"
    with=$(echo "$with + $(cpu "$trtlens" partition "$model" --trt 8.5 --precision fp16 --format json --target orin-dla "$@")" | bc -l)
  done
  local parts; parts=$("$trtlens" partition "$model" --trt 8.5 --precision fp16 --format json --target orin-dla |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print("%d parts, %d loadables" % (len(d["parts"]), d["dla"]["loadables"]))')
  printf "%-24s %-6s %9.3f %9.3f %6.3f  %s\n" "$(basename "$model")" "${1:+-o}" "$(echo "$plain / $n" | bc -l)" \
    "$(echo "$with / $n" | bc -l)" "$(echo "$with / $plain" | bc -l)" "$parts"
}
printf "%-24s %-6s %9s %9s %6s\n" model write "plain cpu" "dla cpu" ratio
for m in "$out/wide.onnx" "$out/dla_chain.onnx" "$out/dla_branches.onnx" "$root/build/model-cache/resnet18_op17.onnx" "$root/build/model-cache/mobilenet_v2_op17.onnx"; do
  [ -f "$m" ] || { echo "$m missing, skipped"; continue; }
  pair "$m"
  pair "$m" -o "$out/dla.parts"
done
rm -rf "$out/dla.parts"
