#!/usr/bin/env bash
# matrix on a DLA target (each release x precision placed on the DLA core) against the same matrix without a target
# and, given other builds, against them (a build from before the placement, one without the per-release memo), side
# by side: the commands alternate N times in one run and their CPU seconds (user + system) are summed.
# Usage: bench/targets/matrix.sh [OUT_DIR] [N] [OTHER_TRTLENS...]  (default bench/out, 5). Needs build/trtlens and
# Debian's python3-onnx (the 99,001-node wide graph of bench/onnx) and swin_t_op17 in build/model-cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
n=${2:-5}
shift $(( $# < 2 ? $# : 2 ))
others=("$@")
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$root/bench/onnx/gen_models.py" "$out" --only wide
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ), $n alternations"
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
row() {
  local model=$1 format=$2
  local -a runs=("$trtlens matrix $model --format $format" "$trtlens matrix $model --format $format --target orin-dla")
  for o in "${others[@]}"; do runs+=("$o matrix $model --format $format --target orin-dla"); done
  local -a sums
  for i in "${!runs[@]}"; do sums[$i]=0; done
  for _ in $(seq "$n"); do
    for i in "${!runs[@]}"; do
      # shellcheck disable=SC2086
      sums[$i]=$(echo "${sums[$i]} + $(cpu ${runs[$i]} || true)" | bc -l)
    done
  done
  local line
  line=$(printf "%-20s %-5s" "$(basename "$model")" "$format")
  for i in "${!runs[@]}"; do
    line+=$(printf " %8.3f (%5.2f)" "$(echo "${sums[$i]} / $n" | bc -l)" "$(echo "${sums[$i]} / ${sums[0]}" | bc -l)")
  done
  echo "$line"
}
echo "model                format  plain  |  --target orin-dla  |  others with --target orin-dla: CPU s (ratio to plain)"
row "$out/wide.onnx" json
row "$out/wide.onnx" text
[ -f "$root/build/model-cache/swin_t_op17.onnx" ] && row "$root/build/model-cache/swin_t_op17.onnx" json
[ -f "$root/build/model-cache/swin_t_op17.onnx" ] && row "$root/build/model-cache/swin_t_op17.onnx" text
