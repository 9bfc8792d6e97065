#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS from seeds written by fuzz_seeds (the project's fixtures)
# plus the reproducers in ../shared/fuzz-findings when present. Fails on the first target that
# finds a crash, a leak, a timeout (10 s per input) or more than 2 GB of memory; the input that
# did it is kept in BUILD_DIR/fuzz-artifacts/. Builds the tree first when a target is missing.
# Usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]   (defaults: 60, build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=${2:-build-fuzz}
targets=(onnx_loader engine_json engine_folder plan_header calib_cache trtexec_log model_archive request_head output_writers)
for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { tests/fuzz/build.sh "$build"; break; }
done

seeds="$build/fuzz-seeds"
rm -rf "$seeds"
"$build/tests/fuzz/fuzz_seeds" "$seeds"
findings=../shared/fuzz-findings
if [ -d "$findings" ]; then
  cp "$findings"/*.onnx "$seeds/onnx_loader/" 2>/dev/null || true
  cp "$findings"/*.plan "$seeds/plan_header/" 2>/dev/null || true
  cp "$findings"/*.cache "$seeds/calib_cache/" 2>/dev/null || true
  for d in "$findings"/*/; do  # engine prefixes e.graph.json [+ e.profile.json]
    [ -f "$d/e.graph.json" ] || continue
    { cat "$d/e.graph.json"; if [ -f "$d/e.profile.json" ]; then printf '\0'; cat "$d/e.profile.json"; fi; } \
      > "$seeds/engine_json/$(basename "$d").json"
    # the whole folder, NUL-separated in fuzz_engine_folder's order
    for ext in graph.json profile.json timing.json profile.metadata.json build.metadata.json build.log; do
      [ "$ext" = graph.json ] || printf '\0'
      if [ -f "$d/e.$ext" ]; then cat "$d/e.$ext"; fi
    done > "$seeds/engine_folder/$(basename "$d")"
  done
fi

mkdir -p "$build/fuzz-artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$t"  # grows across runs; the seeds stay as written
  mkdir -p "$corpus"
  echo "fuzz: $t for ${seconds}s"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
       -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" "$corpus" "$seeds/$t" \
       > "$build/fuzz-artifacts/$t.log" 2>&1; then
    tail -n 60 "$build/fuzz-artifacts/$t.log"
    echo "fuzz: $t found a problem; the input is in $build/fuzz-artifacts/" >&2
    exit 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$build/fuzz-artifacts/$t.log" | sed "s/^/fuzz: $t /"
done
echo "fuzz: no findings"
