#!/usr/bin/env bash
# bad-inputs.sh [BUILD_DIR] - runs airc and air-run on every failing input
# (tests/bad_inputs/ and the ones tests/tools/bad_inputs.sh makes, including the
# large ones: a 50 MB token, 1.5 million unknown lines, /dev/zero) under the
# build's sanitizers. CI runs it on its ASan+UBSan build (issue 15): a leak, a bad
# access, a crash, a hang or a line that is not a diagnostic fails it.
# Default BUILD_DIR: build-asan (made by scripts/sanitize.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${BUILD_DIR:-build-asan}}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
for t in tools/airc tools/air-run; do
  [ -x "$build/$t" ] || { echo "bad-inputs.sh: no $build/$t (build first)" >&2; exit 2; }
done
# A sanitizer report must fail the command with an exit code no tool uses.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=86:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
exec bash "$root/tests/tools/bad_inputs.sh" --big "$build/tools/airc" "$build/tools/air-run"
