#!/usr/bin/env bash
# fuzz.sh [SECONDS] - runs the parser fuzzer (tests/fuzz/fuzz_parse.c) for a
# bounded time, starting from the seed corpus. New interesting inputs go to
# $BUILD_DIR/fuzz-corpus (kept between runs); a crash is saved in
# $BUILD_DIR/fuzz-artifacts and makes the script fail. To keep a crash as a
# regression test, copy the file into tests/fuzz/corpus/.
# Environment: BUILD_DIR (default: build-asan, shared with scripts/sanitize.sh),
# CC (default: clang), JOBS, FUZZ_SEED (default: random; CI fixes it so a run
# explores the same inputs each time and a failure points at the change),
# FUZZ_RUNS (default: unbounded; with a seed, a fixed number of inputs makes the
# run the same on a fast or a slow machine; SECONDS stays as a cap).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
build=${BUILD_DIR:-build-asan}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export CC=${CC:-clang}

if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^AIR_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  BUILD_DIR=$build bash "$root/scripts/build.sh" -DAIR_WERROR=ON \
    -DAIR_SANITIZE=address,undefined -DAIR_FUZZ=ON
else
  cmake --build "$build" -j "$jobs" --target fuzz_parse
fi

seeds=("$root/tests/fuzz/corpus" "$root/samples")
for d in tests/data/programs tests/data/parse tests/tools; do
  [ -d "$root/$d" ] && seeds+=("$root/$d")
done
mkdir -p "$build/fuzz-corpus" "$build/fuzz-artifacts"
rm -f "$build"/fuzz-artifacts/*
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The first corpus directory receives new inputs; the seeds are only read.
seed=()
[ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
[ -n "${FUZZ_RUNS:-}" ] && seed+=(-runs="$FUZZ_RUNS")
status=0
"$build/tests/fuzz_parse" "${seed[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -dict="$root/tests/fuzz/air.dict" \
  -artifact_prefix="$build/fuzz-artifacts/" \
  "$build/fuzz-corpus" "${seeds[@]}" || status=$?
if [ $status -ne 0 ]; then
  echo "fuzz.sh: the fuzzer found a failing input (exit $status):" >&2
  for f in "$build"/fuzz-artifacts/*; do
    [ -f "$f" ] || continue
    echo "  $f  (base64: $(head -c 2048 "$f" | base64 -w0))" >&2
  done
  echo "reproduce: $build/tests/fuzz_parse FILE; keep it: cp FILE tests/fuzz/corpus/" >&2
fi
exit $status
