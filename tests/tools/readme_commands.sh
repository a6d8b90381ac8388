#!/usr/bin/env bash
# readme_commands.sh SOURCE_DIR BUILD_DIR - runs every command the README shows
# for the built tools and samples (lines of its ```sh blocks that start with
# `build/`, or pipe into one), in order, from a scratch directory that looks like
# the repository root (samples/, tests/, build/). Each must exit 0, or 1 when its
# comment says `exit 1`; so every file a README command names must exist and every
# example must work as printed.
set -u
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$src/samples" "$tmp/samples"
ln -s "$src/tests" "$tmp/tests"
ln -s "$build" "$tmp/build"
cd "$tmp" || exit 1

mapfile -t lines < <(awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on' "$src/README.md" |
  grep -E '^(build/|[^#]*\| *build/)')
[ ${#lines[@]} -ge 10 ] || { echo "FAIL: found only ${#lines[@]} commands in README.md"; exit 1; }
fails=0
for line in "${lines[@]}"; do
  want=0
  [[ $line == *"# exit 1"* ]] && want=1
  timeout 300 bash -c "$line" >out 2>err </dev/null
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    fails=$((fails + 1))
    echo "FAIL: exit $rc (expected $want): $line"
    head -c 2000 err | sed 's/^/  | /'
  else
    echo "ok: $line"
  fi
done
echo "${#lines[@]} README commands, $fails failed"
[ "$fails" -eq 0 ]
