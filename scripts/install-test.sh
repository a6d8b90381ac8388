#!/usr/bin/env bash
# install-test.sh [BUILD_DIR] - checks that an installed libairrt is usable as a
# user would use it. Installs BUILD_DIR (default: build, already built) into a
# temporary prefix, then:
#   1. the shared library exports only `air_` symbols, each declared in a public
#      header, and has a versioned SONAME;
#   2. every public header compiles on its own as strict C11, and air/air.h
#      includes all of them;
#   3. tests/install builds with find_package(airrt) against the prefix, linking
#      the shared and the static library, and both programs run;
#   4. the same main.c builds with `pkg-config --cflags --libs airrt` and runs;
#   5. the installed airc runs.
# Environment: CC (default: cc).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
cc=${CC:-cc}
[ -f "$build/CMakeCache.txt" ] || { echo "install-test: $build is not a build directory" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || {
  cat "$tmp/install.log" >&2; fail "cmake --install"; }
lib=$(find "$prefix" -name 'libairrt.so.*.*.*' -type f | head -n1)
[ -n "$lib" ] || fail "no libairrt.so.X.Y.Z installed"
libdir=$(dirname "$lib")
[ -e "$libdir/libairrt.so" ] || fail "no libairrt.so development link"
[ -f "$libdir/libairrt.a" ] || fail "no libairrt.a"

# 1. ABI surface.
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[[ "$soname" =~ ^libairrt\.so\.[0-9]+(\.[0-9]+)*$ ]] || fail "SONAME '$soname' is not versioned"
[ -e "$libdir/$soname" ] || fail "no $soname link next to the library"
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$tmp/exports"
grep -v '^air_' "$tmp/exports" >"$tmp/foreign" || true
[ -s "$tmp/foreign" ] && fail "exports symbols without the air_ prefix: $(tr '\n' ' ' <"$tmp/foreign")"
cat "$prefix"/include/air/*.h >"$tmp/headers"
while read -r sym; do
  grep -qw "$sym" "$tmp/headers" || echo "$sym"
done <"$tmp/exports" >"$tmp/undeclared"
[ -s "$tmp/undeclared" ] && fail "exports symbols no public header declares: $(tr '\n' ' ' <"$tmp/undeclared")"
echo "install-test: $(wc -l <"$tmp/exports") exported symbols, all air_ and declared; SONAME $soname"

# 2. Self-contained headers.
for h in "$prefix"/include/air/*.h; do
  printf '#include <air/%s>\ntypedef int air_install_test_nonempty;\n' "$(basename "$h")" |
    "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$prefix/include" -x c - ||
    fail "header air/$(basename "$h") does not compile on its own"
done

# air/air.h promises the whole API: it must include every other public header.
for h in "$prefix"/include/air/*.h; do
  name=$(basename "$h")
  [ "$name" = air.h ] && continue
  grep -q "#include \"air/$name\"" "$prefix/include/air/air.h" ||
    fail "air/air.h does not include air/$name"
done

# 3. find_package consumer.
cmake -S "$root/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" >"$tmp/consumer.log" 2>&1 || {
  cat "$tmp/consumer.log" >&2; fail "configuring the find_package consumer"; }
cmake --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1 || {
  cat "$tmp/consumer.log" >&2; fail "building the find_package consumer"; }
"$tmp/consumer/consumer" >"$tmp/run.log" || { cat "$tmp/run.log"; fail "consumer (shared) failed"; }
"$tmp/consumer/consumer_static" >"$tmp/run.log" || { cat "$tmp/run.log"; fail "consumer (static) failed"; }
echo "install-test: find_package(airrt) consumer ok (shared and static)"

# 4. pkg-config consumer. The .pc file names the prefix it was configured for;
# --define-variable points it at where this test installed.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --define-variable=prefix="$prefix" --cflags --libs airrt) ||
  fail "pkg-config does not know airrt"
# shellcheck disable=SC2086 # flags are meant to split
"$cc" -std=c11 -Wall -Wextra -Werror -pedantic "$root/tests/install/main.c" $flags \
  -o "$tmp/pc_consumer" || fail "building with pkg-config flags: $flags"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/pc_consumer" >"$tmp/run.log" ||
  { cat "$tmp/run.log"; fail "pkg-config consumer failed"; }
echo "install-test: pkg-config consumer ok ($flags)"

# 5. The installed tool.
if [ -x "$prefix/bin/airc" ]; then
  "$prefix/bin/airc" --version >/dev/null || fail "installed airc --version"
  echo "install-test: airc installed and runs"
fi
echo "install-test: ok"
