#!/usr/bin/env bash
# sanitize.sh [SANITIZERS] [CTEST_ARGS...] - builds everything with sanitizers
# (default: address,undefined) and runs every test under them. Also builds the
# libFuzzer target when the sanitizers include address, so one build directory
# serves scripts/fuzz.sh too.
# Environment: BUILD_DIR (default: build-asan, or build-tsan for thread),
# CC (default: clang), JOBS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sanitizers=${1:-address,undefined}
[ $# -gt 0 ] && shift
case "$sanitizers" in
  *thread*) default_dir=build-tsan fuzz=OFF ;;
  *address*) default_dir=build-asan fuzz=ON ;;
  *) default_dir=build-san fuzz=OFF ;;
esac
build=${BUILD_DIR:-$default_dir}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export CC=${CC:-clang}
case "${CC##*/}" in *clang*) ;; *) fuzz=OFF ;; esac # libFuzzer needs clang

BUILD_DIR=$build bash "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DAIR_WERROR=ON -DAIR_SANITIZE="$sanitizers" -DAIR_FUZZ=$fuzz

# Fail on the first report, with a stack, and look for leaks too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
