#!/usr/bin/env bash
# Partition benchmark (issues 11, 20): `partition` against one `check` of the same model, on a
# 1,020-node detection-like model, the 99,001-node wide graph of bench/onnx and, when the
# model cache has them, torchvision's swin_t (6,333 nodes) and vit_b_16 (346 MB of weights).
# Usage: bench/partition/run.sh [OUT_DIR]  (default bench/out)
# Needs: a built build/trtlens, Debian's python3-onnx, hyperfine, /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/bench/out}
trtlens=$root/build/trtlens
mkdir -p "$out"
[ -f "$out/detect/model.onnx" ] || /usr/bin/python3 "$here/gen_detect.py" "$out"
[ -f "$out/wide.onnx" ] || /usr/bin/python3 "$root/bench/onnx/gen_models.py" "$out" --only wide

# Mean wall and CPU (user + system) seconds over N hyperfine runs (after a warm-up; `prepare` runs before each)
# and peak RSS (MB, /usr/bin/time) of the whole process. Exit code 1 (the model does not
# convert) is expected.
measure() {
  local runs=$1 prepare=$2; shift 2
  local json; json=$(mktemp)
  hyperfine -i -N --warmup 1 --runs "$runs" --prepare "$prepare" --style none --export-json "$json" "$(printf '%q ' "$@")" > /dev/null 2>&1
  local t; t=$(/usr/bin/python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.3f %.3f" % (r["mean"], r["user"] + r["system"]))' "$json")
  rm -f "$json"
  eval "$prepare"
  local m; m=$( { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | grep -E "^[0-9]+$" | tail -1 || true)
  echo "$t $((m / 1024))"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
row() { printf "%-8s %-32s %7s %7s %7s %8s %8s\n" "$@"; }
row model command "wall s" "cpu s" "peak MB" "× check" "cpu ×"
cache=$root/build/model-cache
for name in detect wide swin_t vit_b_16; do
  case $name in
    detect) model=$out/detect/model.onnx; runs=10 ;;
    wide) model=$out/wide.onnx; runs=5 ;;
    *) model=$cache/${name}_op17.onnx; runs=5 ;;
  esac
  [ -f "$model" ] || { echo "$name: $model missing, skipped"; continue; }
  parts=$out/$name.parts
  cat "$model" > /dev/null
  ratio() { printf "%.2f" "$(echo "$1 / $2" | bc -l)"; }
  read -r ct cc cm < <(measure $runs true "$trtlens" check "$model" --trt 8.6 --precision fp16 --format json)
  row $name "check --format json" "$ct" "$cc" "$cm" 1.00 1.00
  read -r pt pc pm < <(measure $runs true "$trtlens" partition "$model" --trt 8.6 --precision fp16 --format json)
  row $name "partition --format json" "$pt" "$pc" "$pm" "$(ratio $pt $ct)" "$(ratio $pc $cc)"
  read -r ot oc om < <(measure $runs "rm -rf $parts" "$trtlens" partition "$model" --trt 8.6 --precision fp16 --format json -o "$parts")
  row $name "partition --format json -o DIR" "$ot" "$oc" "$om" "$(ratio $ot $ct)" "$(ratio $oc $cc)"
done
echo "parts written: $(ls "$out/detect.parts" | wc -l) files for detect ($(du -sh --apparent-size "$out/detect.parts/weights.data" | cut -f1) of weights copied), $(ls "$out/wide.parts" | wc -l) for wide"
