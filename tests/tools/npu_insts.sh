#!/usr/bin/env bash
# npu_insts.sh AIRC DATA_DIR - `airc npu-insts` end to end: the hex output of the
# worked example equals the hand-written stream, the binary output holds the same
# words little-endian, and --decode lists both forms identically.
set -euo pipefail
airc=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$airc" npu-insts "$data/memcpy_example.mlir" --format hex -o "$tmp/out.hex"
grep -v '^#' "$data/memcpy_example.hex" | diff - "$tmp/out.hex"
"$airc" npu-insts "$data/memcpy_example.mlir" -o "$tmp/out.bin"
[ "$(stat -c %s "$tmp/out.bin")" -eq $((38 * 4)) ]
# od prints 32-bit words in host (little-endian) order.
od -An -v -tx4 -w4 "$tmp/out.bin" | tr -d ' ' | tr a-f A-F | diff - "$tmp/out.hex"
"$airc" npu-insts --decode "$tmp/out.bin" -o "$tmp/bin.txt"
"$airc" npu-insts --decode "$tmp/out.hex" > "$tmp/hex.txt"
diff "$tmp/bin.txt" "$tmp/hex.txt"
grep -q 'address_patch reg 0x0201d024 arg 0 plus 0x80' "$tmp/bin.txt"
grep -q 'sync          col 1 row 0 MM2S channel 0' "$tmp/bin.txt"
# A bigger design goes through, and its stream decodes.
"$airc" npu-insts "$data/full_design.mlir" -o "$tmp/full.bin"
"$airc" npu-insts --decode "$tmp/full.bin" | grep -q '17 ops'
# Truncating the binary by one word is refused, naming the word.
head -c $((37 * 4)) "$tmp/out.bin" > "$tmp/short.bin"
if "$airc" npu-insts --decode "$tmp/short.bin" 2> "$tmp/err"; then
  echo "FAIL: a truncated stream decoded" >&2; exit 1
fi
grep -q 'word 3: header says 152 bytes, the stream has 148 bytes (truncated)' "$tmp/err"
echo "npu_insts.sh: ok"
