#!/usr/bin/env bash
# Engine benchmark: synthesizes a 20,000-layer engine in trtexec's layout and
# measures load + summary + every linter (`trtlens engine summary` runs them
# all), `engine lint`, and the HTML report, with /usr/bin/time -v (peak RSS)
# and hyperfine (wall time).
#
# usage: bench/engine/run.sh [build dir (default: build)] [layers (default: 20000)]
# Targets (issue 4): summary+linters <= 0.3 s and <= 150 MB; report <= 3 s.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
layers="${2:-20000}"
work="$build/bench-engine"
mkdir -p "$work"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target trtlens -j2 >/dev/null
bin="$build/trtlens"
plan="$work/synth.onnx.engine"
python3 "$root/bench/engine/gen_engine.py" --layers "$layers" --out "$plan"

echo "== machine"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build type: $(grep CMAKE_BUILD_TYPE:STRING "$build/CMakeCache.txt" | cut -d= -f2)"

measure() {  # name, command...
  local name="$1"; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt"; exit 1; }
  local wall user sys rss
  wall=$(grep 'Elapsed (wall clock)' "$work/time.txt" | awk '{print $NF}')
  user=$(grep 'User time' "$work/time.txt" | awk '{print $NF}')
  sys=$(grep 'System time' "$work/time.txt" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' "$work/time.txt" | awk '{print $NF}')
  printf '%-28s wall %8s  user %6s s  sys %6s s  peak RSS %6.1f MB\n' "$name" "$wall" "$user" "$sys" "$(echo "$rss / 1024" | bc -l)"
}

echo "== /usr/bin/time -v"
measure "engine summary (+linters)" "$bin" engine summary "$plan"
measure "engine summary --format json" "$bin" engine summary "$plan" --format json
measure "engine lint" "$bin" engine lint "$plan"
measure "engine report" "$bin" engine report "$plan" -o "$work/report.html"

if command -v hyperfine >/dev/null; then
  echo "== hyperfine"
  hyperfine --warmup 2 --runs 10 --style basic \
    "$bin engine summary $plan" \
    "$bin engine lint $plan" \
    "$bin engine report $plan -o $work/report.html" 2>&1 | grep -Ev '^\s*$'
fi
