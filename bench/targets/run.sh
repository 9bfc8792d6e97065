#!/usr/bin/env bash
# Target benchmark (issue 23): `check --target T` (and `report --target T`) against the same command without
# a target, side by side:
# the two commands alternate N times in one run and their CPU seconds (user + system, steadier than wall
# time on a shared machine) are summed. On the 99,001-node wide graph of bench/onnx (a GPU target; a DLA
# target, where every main-graph node is placed; its text too) and on torchvision resnet18 and mobilenet_v2 of the
# model cache.
# Usage: bench/targets/run.sh [OUT_DIR] [N]  (default bench/out, 5). Needs build/trtlens and Debian's python3-onnx.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
n=${2:-5}
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$root/bench/onnx/gen_models.py" "$out" --only wide
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ), $n alternations"
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
# FORMAT (json or text) TARGET MODEL ARGS...
pair() {
  local format=$1 target=$2 model=$3; shift 3
  local plain=0 with=0
  for _ in $(seq "$n"); do
    plain=$(echo "$plain + $(cpu "$trtlens" check "$model" "$@" --format "$format")" | bc -l)
    with=$(echo "$with + $(cpu "$trtlens" check "$model" "$@" --format "$format" --target "$target")" | bc -l)
  done
  printf "%-24s %-9s %-5s %9.3f %9.3f %6.3f\n" "$(basename "$model")" "$target" "$format" "$(echo "$plain / $n" | bc -l)" \
    "$(echo "$with / $n" | bc -l)" "$(echo "$with / $plain" | bc -l)"
}
printf "%-24s %-9s %-5s %9s %9s %6s\n" model target format "plain cpu" "target cpu" ratio
pair json a100 "$out/wide.onnx" --trt 10.8 --precision fp8
pair json orin-dla "$out/wide.onnx" --trt 8.5 --precision fp16
pair text orin-dla "$out/wide.onnx" --trt 8.5 --precision fp16
for m in resnet18_op17.onnx mobilenet_v2_op17.onnx; do
  [ -f "$root/build/model-cache/$m" ] && pair json orin-dla "$root/build/model-cache/$m" --trt 8.5 --precision fp16
done
# report --target: the page carries the target's runtimes beside the plain ones (CPU and page bytes).
report_pair() {
  local target=$1 model=$2; shift 2
  local plain=0 with=0 page=$out/target_report.html
  for _ in $(seq "$n"); do
    plain=$(echo "$plain + $(cpu "$trtlens" report "$model" -o "$page" "$@")" | bc -l)
    local plain_bytes; plain_bytes=$(stat -c %s "$page")
    with=$(echo "$with + $(cpu "$trtlens" report "$model" -o "$page" "$@" --target "$target")" | bc -l)
  done
  printf "%-24s %-9s %9.3f %9.3f %6.3f  page %s -> %s bytes (%.2fx)\n" "report $(basename "$model")" "$target" \
    "$(echo "$plain / $n" | bc -l)" "$(echo "$with / $n" | bc -l)" "$(echo "$with / $plain" | bc -l)" \
    "$plain_bytes" "$(stat -c %s "$page")" "$(echo "$(stat -c %s "$page") / $plain_bytes" | bc -l)"
}
for m in mobilenet_v2_op17.onnx swin_t_op17.onnx; do
  if [ -f "$root/build/model-cache/$m" ]; then
    report_pair h100 "$root/build/model-cache/$m"
    report_pair orin-dla "$root/build/model-cache/$m" --trt 8.5 --precision fp16
  fi
done
