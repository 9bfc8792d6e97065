#!/usr/bin/env bash
# Check/matrix benchmark (issue 2): trtlens against the Python a user writes today,
# measured side by side in one run. Usage: bench/onnx/run.sh [OUT_DIR]  (default bench/out)
# Needs: a built build/trtlens, Debian's python3-onnx, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only wide
[ -f "$out/gpt2_external/model.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only external
[ -f "$out/gpt2_embedded.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only embedded

# Best of N runs: wall seconds and peak RSS (MB) of the whole process.
measure() {
  local runs=$1; shift
  local best_t=999 best_m=0
  for _ in $(seq "$runs"); do
    read -r t m < <( { /usr/bin/time -f "%e %M" "$@" > /dev/null; } 2>&1 | tail -1)
    if awk -v a="$t" -v b="$best_t" 'BEGIN{exit !(a<b)}'; then best_t=$t; best_m=$m; fi
  done
  echo "$best_t $((best_m / 1024))"
}

printf "%-16s %-28s %9s %9s\n" model command "wall s" "peak MB"
row() { printf "%-16s %-28s %9s %9s\n" "$1" "$2" "$3" "$4"; }
declare -A T
for name in embedded external wide; do
  case $name in
    embedded) model=$out/gpt2_embedded.onnx ;;
    external) model=$out/gpt2_external/model.onnx ;;
    wide) model=$out/wide.onnx ;;
  esac
  # Warm the page cache the same way for both sides.
  cat "$model" > /dev/null
  read -r pt pm < <(measure 3 /usr/bin/python3 "$here/python_baseline.py" "$model")
  read -r ct cm < <(measure 5 "$trtlens" check "$model" --trt 10.0 --precision fp16 --format json)
  read -r mt mm < <(measure 3 "$trtlens" matrix "$model" --format json)
  row "$name" "python onnx.load + loop" "$pt" "$pm"
  row "$name" "trtlens check" "$ct" "$cm"
  row "$name" "trtlens matrix (33x6)" "$mt" "$mm"
  echo "  python/check: $(awk -v a="$pt" -v b="$ct" 'BEGIN{printf "%.1fx", a/b}')   matrix/check: $(awk -v a="$mt" -v b="$ct" 'BEGIN{printf "%.2fx", a/b}')"
done
