#!/usr/bin/env bash
# Check/matrix benchmark (issues 2 and 18): trtlens against the Python a user writes today,
# measured side by side in one run. Usage: bench/onnx/run.sh [OUT_DIR] [BASELINE_TRTLENS]
# (default OUT_DIR bench/out; BASELINE_TRTLENS: another build to compare, e.g. before a change).
# Needs: a built build/trtlens, Debian's python3-onnx, hyperfine, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
baseline=${2:-}
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only wide
[ -f "$out/chain.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only chain
[ -f "$out/gpt2_external/model.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only external
[ -f "$out/gpt2_embedded.onnx" ] || /usr/bin/python3 "$here/gen_models.py" "$out" --only embedded

# Median CPU seconds (user + system) and wall seconds over N runs of the whole
# process (hyperfine, after a warm-up run), and peak RSS (MB, /usr/bin/time).
measure() {
  local runs=$1; shift
  local json; json=$(mktemp)
  hyperfine --warmup 1 --runs "$runs" --style none --export-json "$json" "$(printf '%q ' "$@")" > /dev/null
  local t; t=$(/usr/bin/python3 -c '
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%.3f %.3f" % (r["user"] + r["system"], statistics.median(r["times"])))' "$json")
  rm -f "$json"
  local m; m=$( { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | tail -1)
  echo "$t $((m / 1024))"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2fx", a/b}'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
printf "%-9s %-30s %8s %8s %8s\n" model command "CPU s" "wall s" "peak MB"
row() { printf "%-9s %-30s %8s %8s %8s\n" "$1" "$2" "$3" "$4" "$5"; }
for name in embedded external wide chain; do
  case $name in
    embedded) model=$out/gpt2_embedded.onnx ;;
    external) model=$out/gpt2_external/model.onnx ;;
    wide) model=$out/wide.onnx ;;
    chain) model=$out/chain.onnx ;;
  esac
  runs=10; [ "$name" = chain ] && runs=5
  # Warm the page cache the same way for every side.
  cat "$model" > /dev/null
  read -r pc pw pm < <(measure 3 /usr/bin/python3 "$here/python_baseline.py" "$model")
  read -r cc cw cm < <(measure "$runs" "$trtlens" check "$model" --trt 10.0 --precision fp16 --format json)
  read -r mc mw mm < <(measure "$runs" "$trtlens" matrix "$model" --format json)
  row "$name" "python onnx.load + node loop" "$pc" "$pw" "$pm"
  row "$name" "trtlens check" "$cc" "$cw" "$cm"
  row "$name" "trtlens matrix (all runtimes)" "$mc" "$mw" "$mm"
  line="  check CPU / python CPU: $(ratio "$cc" "$pc")   check memory / python: $(ratio "$cm" "$pm")   matrix / check CPU: $(ratio "$mc" "$cc")"
  if [ -n "$baseline" ]; then
    read -r bc bw bm < <(measure "$runs" "$baseline" check "$model" --trt 10.0 --precision fp16 --format json)
    read -r bmc bmw bmm < <(measure "$runs" "$baseline" matrix "$model" --format json)
    row "$name" "baseline check" "$bc" "$bw" "$bm"
    row "$name" "baseline matrix" "$bmc" "$bmw" "$bmm"
    line="$line   baseline check / check CPU: $(ratio "$bc" "$cc")"
  fi
  echo "$line"
done
