#!/usr/bin/env bash
# fuzz.sh [SECONDS] - runs a fuzzer for a bounded time, starting from its seed
# corpus: FUZZ_TARGET=parse (default; tests/fuzz/fuzz_parse.c, the parser) or
# FUZZ_TARGET=artifact (tests/fuzz/fuzz_artifact.c, the .airbin reader; its seeds
# are tests/fuzz/artifact_corpus plus every sample compiled with airc) or
# FUZZ_TARGET=code-object (tests/fuzz/fuzz_code_object.c, the AMDGPU code-object
# reader; seeds tests/fuzz/code_object_corpus plus the test suite's objects) or
# FUZZ_TARGET=host-object (tests/fuzz/fuzz_host_object.c, the loader of the x86-64
# host code an .airbin carries; seeds tests/fuzz/host_object_corpus). New
# interesting inputs go to $BUILD_DIR/fuzz-corpus (parse) or
# $BUILD_DIR/fuzz-corpus-artifact, kept between runs; a crash is saved in
# $BUILD_DIR/fuzz-artifacts(-artifact) and makes the script fail. To keep a crash
# as a regression test, copy the file into tests/fuzz/corpus/ (parse) or
# tests/fuzz/artifact_corpus/ (artifact).
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
target=${FUZZ_TARGET:-parse}
case "$target" in
  parse) suffix="" keep="tests/fuzz/corpus/" ;;
  artifact) suffix="-artifact" keep="tests/fuzz/artifact_corpus/" ;;
  code-object) suffix="-code-object" keep="tests/fuzz/code_object_corpus/" ;;
  txn|aie) suffix="-$target" keep="tests/fuzz/${target}_corpus/" ;;
  host-object) suffix="-host-object" keep="tests/fuzz/host_object_corpus/" ;;
  *) echo "fuzz.sh: FUZZ_TARGET must be parse, artifact, code-object, txn, aie or host-object, not '$target'" >&2
     exit 2 ;;
esac

if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^AIR_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  BUILD_DIR=$build bash "$root/scripts/build.sh" -DAIR_WERROR=ON \
    -DAIR_SANITIZE=address,undefined -DAIR_FUZZ=ON
else
  cmake --build "$build" -j "$jobs" --target "fuzz_${target//-/_}" airc
fi
binary=$build/tests/fuzz_${target//-/_}

corpus=$build/fuzz-corpus$suffix
crashes=$build/fuzz-artifacts$suffix
mkdir -p "$corpus" "$crashes"
rm -f "$crashes"/*
dict=()
if [ "$target" = parse ]; then
  seeds=("$root/tests/fuzz/corpus" "$root/samples")
  for d in tests/data/programs tests/data/parse tests/data/constructs tests/tools; do
    [ -d "$root/$d" ] && seeds+=("$root/$d")
  done
  dict=(-dict="$root/tests/fuzz/air.dict")
elif [ "$target" = code-object ]; then
  seeds=("$root/tests/fuzz/code_object_corpus")
  [ -d "$build/tests/amdgpu" ] && seeds+=("$build/tests/amdgpu")
elif [ "$target" = host-object ]; then
  seeds=("$root/tests/fuzz/host_object_corpus")
elif [ "$target" = txn ] || [ "$target" = aie ]; then
  seeds=("$root/tests/fuzz/${target}_corpus" "$root/tests/data/npu")
  if [ "$target" = txn ]; then
    mkdir -p "$build/txn-seeds"
    for f in "$root"/tests/data/npu/*.mlir "$root"/tests/fuzz/aie_corpus/*.mlir; do
      "$build/tools/airc" npu-insts "$f" -o "$build/txn-seeds/$(basename "$f" .mlir).bin" \
        2>/dev/null || true
    done
    seeds+=("$build/txn-seeds")
  fi
else
  # Valid artifacts of today's compiler, next to the kept findings.
  seeds=("$root/tests/fuzz/artifact_corpus" "$build/artifact-seeds")
  mkdir -p "$build/artifact-seeds"
  for f in "$root"/samples/*.mlir "$root"/tests/data/programs/*.mlir "$root"/tests/data/artifact/*.mlir; do
    [ -f "$f" ] || continue
    "$build/tools/airc" compile "$f" --target cpu -o "$build/artifact-seeds/$(basename "$f" .mlir).airbin" \
      2>/dev/null || true
  done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The first corpus directory receives new inputs; the seeds are only read.
seed=()
[ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
[ -n "${FUZZ_RUNS:-}" ] && seed+=(-runs="$FUZZ_RUNS")
status=0
"$binary" "${seed[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 "${dict[@]}" \
  -artifact_prefix="$crashes/" \
  "$corpus" "${seeds[@]}" || status=$?
if [ $status -ne 0 ]; then
  echo "fuzz.sh: the fuzzer found a failing input (exit $status):" >&2
  for f in "$crashes"/*; do
    [ -f "$f" ] || continue
    echo "  $f  (base64: $(head -c 2048 "$f" | base64 -w0))" >&2
  done
  echo "reproduce: $binary FILE; keep it: cp FILE $keep" >&2
fi
exit $status
