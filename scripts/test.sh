#!/usr/bin/env bash
# test.sh - builds everything with warnings as errors and runs every test.
# Environment: BUILD_DIR (default: build), CC, JOBS; extra arguments go to ctest
# (e.g. scripts/test.sh -R airc_ or -L cli).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

BUILD_DIR=$build bash "$root/scripts/build.sh" -DAIR_WERROR=ON
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
