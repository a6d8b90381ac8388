#!/usr/bin/env bash
# build.sh [CMAKE_ARGS...] - installs dependencies, configures and builds libairrt,
# its tools and its tests into $BUILD_DIR (default: build).
# Environment: BUILD_DIR, CC, JOBS (default: number of cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

bash "$root/scripts/setup-deps.sh"

generator=()
# A build directory keeps the generator it was made with; name it only the
# first time so an existing directory configured another way still works.
[ -f "$build/CMakeCache.txt" ] || generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" "$@"
cmake --build "$build" -j "$jobs"
