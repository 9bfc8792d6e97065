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

# Mean wall seconds over N runs (hyperfine, after a warm-up run) and peak RSS
# (MB, /usr/bin/time) of the whole process.
measure() {
  local runs=$1; shift
  local json; json=$(mktemp)
  hyperfine --warmup 1 --runs "$runs" --style none --export-json "$json" "$(printf '%q ' "$@")" > /dev/null
  local t; t=$(/usr/bin/python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["mean"])' "$json")
  rm -f "$json"
  local m; m=$( { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | tail -1)
  echo "$t $((m / 1024))"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
printf "%-16s %-28s %9s %9s\n" model command "mean s" "peak MB"
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
  read -r ct cm < <(measure 10 "$trtlens" check "$model" --trt 10.0 --precision fp16 --format json)
  read -r mt mm < <(measure 10 "$trtlens" matrix "$model" --format json)
  row "$name" "python onnx.load + loop" "$pt" "$pm"
  row "$name" "trtlens check" "$ct" "$cm"
  row "$name" "trtlens matrix (33x6)" "$mt" "$mm"
  echo "  python/check: $(awk -v a="$pt" -v b="$ct" 'BEGIN{printf "%.1fx", a/b}')   matrix/check: $(awk -v a="$mt" -v b="$ct" 'BEGIN{printf "%.2fx", a/b}')"
done
