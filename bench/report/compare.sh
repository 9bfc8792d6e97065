#!/usr/bin/env bash
# CPU seconds (user + sys) of `trtlens report` for two or more binaries side by side: each round
# runs every binary once on every model, in turn, so load changes hit them alike. Prints the
# median of the rounds per (model, binary) and the ratio to the first binary.
# Usage: bench/report/compare.sh ROUNDS MODEL... -- BINARY...
# Example (issue 22, folding's second layout):
#   bench/report/compare.sh 5 build/model-cache/swin_t_op17.onnx build/model-cache/resnet18_op17.onnx \
#     bench/out/report/model10000.onnx -- OLD/trtlens build/trtlens
# (bench/report/run.sh writes model10000.onnx; `make_model.py OUT 10000` does too.)
set -euo pipefail
rounds="$1"; shift
models=(); bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do models+=("$1"); shift; done
[ $# -gt 0 ] && shift
bins=("$@")
[ ${#models[@]} -gt 0 ] && [ ${#bins[@]} -gt 0 ] || { echo "usage: $0 ROUNDS MODEL... -- BINARY..." >&2; exit 2; }
out="$(mktemp -d /tmp/report-compare.XXXXXX)"
trap 'rm -rf "$out"' EXIT
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for ((r = 0; r < rounds; r++)); do
  for m in "${models[@]}"; do
    for b in "${!bins[@]}"; do
      /usr/bin/time -f "%U %S %M" -o "$out/t" "${bins[$b]}" report "$m" -o "$out/page.html" > /dev/null 2>&1
      echo "$(basename "$m") $b $(cat "$out/t") $(stat -c %s "$out/page.html")" >> "$out/all"
    done
  done
done
python3 - "$out/all" "${bins[@]}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
bins = sys.argv[2:]
models = list(dict.fromkeys(r[0] for r in rows))
print("| model | binary | CPU s (median, min-max) | vs first | peak RSS | page bytes |")
print("|---|---|---:|---:|---:|---:|")
for m in models:
    base = None
    for b in range(len(bins)):
        rs = [r for r in rows if r[0] == m and int(r[1]) == b]
        cpu = [float(r[2]) + float(r[3]) for r in rs]
        med = statistics.median(cpu)
        base = base or med
        rss = max(int(r[4]) for r in rs) // 1024
        print(f"| {m} | {bins[b]} | {med:.2f} ({min(cpu):.2f}-{max(cpu):.2f}) | {med / base:.2f}x | {rss} MB | {rs[-1][5]} |")
EOF
