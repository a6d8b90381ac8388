#!/usr/bin/env bash
# run-sample.sh [DEVICE_URI] - the main job: builds everything, checks every
# sample program with `airc verify`, then runs the 512x512x512 matmul sample
# (f32, and bf16 inputs with f32 output) on a 4x4 herd on the device (default:
# cpu) and prints each result's check against a C reference and its time.
# Exit status is the sample's: 0 when both results match the reference.
# Environment: BUILD_DIR (default: build), CC, JOBS, RUNS (timed runs, default 3).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
device=${1:-cpu}

BUILD_DIR=$build bash "$root/scripts/build.sh" >&2
airc=$build/tools/airc

for f in "$root"/samples/*.mlir; do
  "$airc" verify "$f" --target cpu
  echo "verified: samples/$(basename "$f")" >&2
done
echo "--- samples/matmul.c: matmul_4x4.mlir and matmul_4x4_bf16.mlir on $device" >&2
"$build/samples/matmul" "$root/samples" "$device" "${RUNS:-3}"
