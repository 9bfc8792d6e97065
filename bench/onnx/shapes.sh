#!/usr/bin/env bash
# Check on wide graphs of several shapes and sizes (issue 34): trtlens `check` (json and text) against
# Python's bare onnx.load + node loop, interleaved run by run; median CPU (user + sys) and median peak RSS of
# RUNS runs each. Usage: bench/onnx/shapes.sh [OUT_DIR] [RUNS] [TRTLENS]
# Prints one row per family at 100k nodes, then the layernorm family at 1k, 10k, 100k and 1M nodes with the
# fitted exponent of CPU against nodes (least squares on logs). Needs Debian's python3-onnx and /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
runs=${2:-5}
trtlens=${3:-$root/build/trtlens}
mkdir -p "$out"
for f in layernorm attention conv inits longnames; do
  [ -f "$out/${f}_100000.onnx" ] || /usr/bin/python3 "$here/gen_shapes.py" "$out" --only $f > /dev/null
done
for n in 1000 10000 1000000; do
  [ -f "$out/layernorm_$n.onnx" ] || /usr/bin/python3 "$here/gen_shapes.py" "$out" --nodes $n --only layernorm > /dev/null
done

one() { { /usr/bin/time -f "%U %S %M" "$@" > /dev/null; } 2>&1 | tail -1 | awk '{printf "%.3f %d\n", $1 + $2, $3 / 1024}'; }
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# measure MODEL: prints "pyCPU pyMB jsonCPU jsonMB textCPU textMB" (medians), the three commands interleaved.
measure() {
  local model=$1 tmp; tmp=$(mktemp -d)
  cat "$model" > /dev/null
  for _ in $(seq "$runs"); do
    one /usr/bin/python3 "$here/python_baseline.py" "$model" >> "$tmp/py"
    one "$trtlens" check "$model" --trt 10.0 --precision fp16 --format json >> "$tmp/json"
    one "$trtlens" check "$model" --trt 10.0 --precision fp16 >> "$tmp/text"
  done
  local r=""
  for k in py json text; do
    r="$r $(cut -d' ' -f1 "$tmp/$k" | median) $(cut -d' ' -f2 "$tmp/$k" | median)"
  done
  rm -rf "$tmp"
  echo $r
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ), $runs interleaved runs"
printf "| %-22s | %7s | %6s | %9s | %7s | %9s | %7s | %-22s |\n" model "py CPU" "py MB" "json CPU" "json MB" "text CPU" "text MB" "json/py CPU, RSS"
row() {
  read -r pc pm jc jm tc tm < <(measure "$2")
  printf "| %-22s | %7s | %6s | %9s | %7s | %9s | %7s | %-22s |\n" "$1" "$pc" "$pm" "$jc" "$jm" "$tc" "$tm" \
    "$(awk -v a="$jc" -v b="$pc" -v c="$jm" -v d="$pm" 'BEGIN{printf "%.2fx, %.2fx", a/b, c/d}')"
  echo "$1 $jc" >> "$out/.scaling"
}
rm -f "$out/.scaling"
for f in layernorm attention conv inits longnames; do
  row "$f 100k" "$out/${f}_100000.onnx"
done
rm -f "$out/.scaling"
for n in 1000 10000 100000 1000000; do
  row "layernorm $n" "$out/layernorm_$n.onnx"
done
# Fitted exponent: slope of log(json CPU) against log(nodes).
awk '{x = log($2); y = log($3); sx += x; sy += y; sxx += x * x; sxy += x * y; k++}
     END {printf "json CPU ~ nodes^%.2f (least squares over %d sizes)\n", (k * sxy - sx * sy) / (k * sxx - sx * sx), k}' \
  <(awk '{print $1, $2, $3}' "$out/.scaling")
