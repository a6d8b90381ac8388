#!/usr/bin/env bash
# roundtrip.sh AIRC FILE [--split-input-file] - the printer's promise (program.h):
# print(FILE) parses back, and printing that again gives the same text. The
# printed text must also still pass `airc verify`.
set -euo pipefail
airc=$1 file=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$airc" print "$file" "$@" -o "$tmp/first.mlir"
"$airc" print "$tmp/first.mlir" "$@" -o "$tmp/second.mlir"
if ! cmp -s "$tmp/first.mlir" "$tmp/second.mlir"; then
  echo "FAIL: printing $file twice differs:"
  diff -u "$tmp/first.mlir" "$tmp/second.mlir" | head -60
  exit 1
fi
"$airc" verify "$tmp/first.mlir" "$@"
echo "ok: $file round-trips ($(wc -l <"$tmp/first.mlir") lines)"
