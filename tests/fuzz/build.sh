#!/usr/bin/env bash
# Configures and builds the sanitizer tree: the library, the unit tests and the fuzz targets with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer (any UB report fails). Then
#   ctest --test-dir BUILD_DIR -R '^(unit|store)\.|^cli\.Serve(Cli|Limits)'
#                                                runs the unit tests, the dashboard's store and
#                                                its real-server tests under the sanitizers;
#   tests/fuzz/run.sh SECONDS BUILD_DIR          fuzzes each target.
# Usage: tests/fuzz/build.sh [BUILD_DIR]   (default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRTLENS_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target unit_tests store_tests trtlens cli_tests fuzz_seeds \
  fuzz_onnx_loader fuzz_engine_json fuzz_engine_folder fuzz_plan_header fuzz_calib_cache fuzz_trtexec_log \
  fuzz_model_archive fuzz_request_head fuzz_output_writers
