#!/usr/bin/env bash
# error_format.sh AIRC AIR_RUN AIR_BENCH SAMPLES_DIR - every tool's failure paths
# in one table (TOOLS.md): each command must exit with the code given (1 for bad
# input, 2 for bad usage) and every line it writes to stderr must have the one
# diagnostic shape of diag_shape.sh: `PATH[:LINE:COL]: error: MESSAGE`, details
# indented, `usage:` lines after a usage error. A failing case prints its stderr.
set -u
airc=$1 air_run=$2 air_bench=$3 samples=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bad_dir=$here/../bad_inputs
source "$here/diag_shape.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# Inputs: good ones from the samples, bad ones from tests/bad_inputs, and files
# that cannot live in git (binaries, artifacts made by this build).
va=$samples/vector_add.mlir
cp "$here/bad.mlir" bad.mlir
"$airc" compile "$va" --target cpu -o va.airbin || { echo "FAIL: cannot compile $va"; exit 1; }
head -c 10 va.airbin >short.airbin
cp va.airbin corrupt.airbin
# Garbage in the middle of the program text section (it starts after the 64-byte
# ELF header and the metadata): the reader must say where, once.
printf '@@@@' | dd of=corrupt.airbin bs=1 seek=600 conv=notrunc 2>/dev/null
printf 'ab\0cd\1\2\3' >binary.bin
mkdir adir
printf 'id,lower,upper,size\n1,5,2,64\n' >bad.csv
printf 'not numpy' >junk.npy

fails=0 count=0
# expect RC CMD...: runs CMD (stdout dropped), checks the exit code and stderr.
expect() {
  local want=$1
  shift
  count=$((count + 1))
  timeout 60 "$@" >out 2>err </dev/null
  local rc=$?
  local problems
  problems=$(diag_check err "$rc")
  if [ "$rc" -ne "$want" ] || [ -n "$problems" ]; then
    fails=$((fails + 1))
    echo "FAIL: exit $rc (expected $want): ${*#$tmp/}"
    [ -n "$problems" ] && echo "$problems" | sed 's/^/    /'
    sed 's/^/  | /' err | head -c 3000
  fi
}

# ---- airc: usage (2) ----
expect 2 "$airc"
expect 2 "$airc" frobnicate
expect 2 "$airc" help frobnicate
expect 2 "$airc" verify
expect 2 "$airc" verify "$va" "$va"
expect 2 "$airc" verify "$va" --bogus
expect 2 "$airc" verify "$va" --target nosuch
expect 2 "$airc" verify "$va" --target
expect 2 "$airc" print "$va" -o
expect 2 "$airc" print "$va" -o ""
expect 2 "$airc" compile
expect 2 "$airc" compile "$va"
expect 2 "$airc" compile "$va" --target cpu
expect 2 "$airc" compile "$va" --target nosuch -o x.airbin
expect 2 "$airc" compile "$va" --target cpu -o x.airbin --bogus
expect 2 "$airc" compile "$va" --target cpu -o x.airbin --entry ""
expect 2 "$airc" report
expect 2 "$airc" report "$va" --target cpu
expect 2 "$airc" report "$va" --target cpu --emit nosuch
expect 2 "$airc" report "$va" --target nosuch --emit resources
expect 2 "$airc" report "$va" --target cpu --emit schedule --svg a.svg
expect 2 "$airc" report "$va" --target cpu --emit schedule --bogus
expect 2 "$airc" report "$va" --target
expect 2 "$airc" pack
expect 2 "$airc" pack bad.csv --alignment 3
expect 2 "$airc" pack bad.csv --bogus
expect 2 "$airc" pack bad.csv -o

# ---- airc: bad input (1) ----
expect 1 "$airc" verify /nonexistent/none.mlir
expect 1 "$airc" verify adir
expect 1 "$airc" verify bad.mlir
expect 1 "$airc" verify va.airbin
expect 1 "$airc" verify binary.bin
expect 1 "$airc" verify /dev/zero
expect 1 "$airc" verify "$bad_dir/too_big_for_npu1.mlir" --target npu1
expect 1 "$airc" verify "$bad_dir/unbalanced.mlir"
expect 1 "$airc" print bad.mlir
expect 1 "$airc" print va.airbin
expect 1 "$airc" print "$va" -o /nonexistent/out.mlir
expect 1 "$airc" compile bad.mlir --target cpu -o x.airbin
expect 1 "$airc" compile va.airbin --target cpu -o x.airbin
expect 1 "$airc" compile "$va" --target cpu -o /nonexistent/x.airbin
expect 1 "$airc" compile "$va" --target cpu -o adir
expect 1 "$airc" compile "$bad_dir/too_big_for_npu1.mlir" --target npu1 -o x.airbin
expect 1 "$airc" report "$bad_dir/too_big_for_npu1.mlir" --target npu1 --emit resources
expect 1 "$airc" report bad.mlir --target cpu --emit schedule
expect 1 "$airc" report binary.bin --target cpu --emit schedule
expect 1 "$airc" report corrupt.airbin --target cpu --emit schedule
expect 1 "$airc" report short.airbin --target cpu --emit schedule
expect 1 "$airc" report va.airbin --target npu1 --emit schedule
expect 1 "$airc" report "$va" --target cpu --emit schedule -o /nonexistent/s.txt
expect 1 "$airc" pack /nonexistent/none.csv
expect 1 "$airc" pack adir
expect 1 "$airc" pack binary.bin
expect 1 "$airc" pack va.airbin
expect 1 "$airc" pack bad.csv
expect 1 "$airc" pack "$va"
expect 1 "$airc" pack bad.csv -o /nonexistent/o.csv

# ---- airc npu-insts ----
expect 2 "$airc" npu-insts
expect 2 "$airc" npu-insts "$va" --format x
expect 2 "$airc" npu-insts --decode binary.bin --sequence s
expect 1 "$airc" npu-insts "$va" -o x.bin
expect 1 "$airc" npu-insts /nonexistent/none.mlir
expect 1 "$airc" npu-insts --decode binary.bin
expect 1 "$airc" npu-insts --decode adir

# ---- every airc subcommand, including ones added after this table was written:
# an unknown option is bad usage (2); a missing file or a directory, where the
# command gets as far as reading it, is bad input (1); help works.
mapfile -t subcommands < <("$airc" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
[ ${#subcommands[@]} -ge 5 ] || { echo "FAIL: airc --help lists ${#subcommands[@]} commands"; fails=$((fails + 1)); }
for sub in "${subcommands[@]}"; do
  expect 2 "$airc" "$sub" --no-such-option
  "$airc" help "$sub" >out 2>err || { echo "FAIL: airc help $sub exits $?"; fails=$((fails + 1)); }
  grep -q "^usage: airc $sub" out || { echo "FAIL: airc help $sub: no usage line"; fails=$((fails + 1)); }
  for f in /nonexistent/none.mlir adir; do
    count=$((count + 1))
    timeout 60 "$airc" "$sub" "$f" >out 2>err </dev/null
    rc=$?
    problems=$(diag_check err "$rc")
    if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ] || [ -n "$problems" ]; then
      fails=$((fails + 1))
      echo "FAIL: exit $rc (expected 1 or 2): airc $sub $f"
      [ -n "$problems" ] && echo "$problems" | sed 's/^/    /'
    fi
  done
done

# ---- air-run: usage (2) ----
expect 2 "$air_run"
expect 2 "$air_run" "$va" "$va"
expect 2 "$air_run" "$va" --bogus
expect 2 "$air_run" "$va" --input a.npy
expect 2 "$air_run" "$va" --input x=a.npy
expect 2 "$air_run" "$va" --input 0=a.npy --input 0=b.npy
expect 2 "$air_run" "$va" --output
expect 2 "$air_run" "$va" --random=minus1
expect 2 "$air_run" "$va" --timeout 0
expect 2 "$air_run" "$va" --device ""
expect 2 "$air_run" "$va" --device nosuch
expect 2 "$air_run" "$va" --device cpu:threads=lots
expect 2 "$air_run" "$va" -o 0=same.npy -o 1=same.npy
expect 2 "$air_run" "$va" -o 0=same.npy --trace same.npy

# ---- air-run: bad input (1) ----
expect 1 "$air_run" /nonexistent/none.mlir
expect 1 "$air_run" adir
expect 1 "$air_run" /dev/zero
expect 1 "$air_run" bad.mlir
expect 1 "$air_run" binary.bin
expect 1 "$air_run" short.airbin
expect 1 "$air_run" corrupt.airbin
expect 1 "$air_run" "$bad_dir/unbalanced.mlir" --random
expect 1 "$air_run" "$va" --entry nope
expect 1 "$air_run" "$va" --input 0=missing.npy
expect 1 "$air_run" "$va" --input 0=junk.npy
expect 1 "$air_run" "$va" --input 0=adir
expect 1 "$air_run" "$va" --input 0=/dev/zero
expect 1 "$air_run" "$va" --input 5=junk.npy
expect 1 "$air_run" "$va" --output r0=c.npy
expect 1 "$air_run" "$va" --random -o 2=/nonexistent/c.npy
expect 1 "$air_run" "$va" --random -o 2=adir
expect 1 "$air_run" "$va" --random --trace /nonexistent/t.json
expect 1 "$air_run" "$va" --kernels /nonexistent/lib.so --random
expect 1 "$air_run" "$va" --device hsa:0 --random
expect 1 "$air_run" "$bad_dir/i32_range.mlir" --input 0=99999999999
expect 1 "$air_run" "$bad_dir/index_range.mlir" --input 0=-1

# ---- air-bench: usage (2) ----
expect 2 "$air_bench"
expect 2 "$air_bench" nosuch
expect 2 "$air_bench" dma-copy --bogus
expect 2 "$air_bench" dma-copy --threads 0
expect 2 "$air_bench" submit-sweep --reps many
expect 2 "$air_bench" dag-overhead --case nosuch
expect 2 "$air_bench" dag-overhead --bogus
expect 2 "$air_bench" arena-pack --bogus
expect 2 "$air_bench" matmul --threads 100

# Every benchmark, including ones added later: an unknown option is bad usage.
mapfile -t benches < <("$air_bench" list | awk '{ print $1 }')
[ ${#benches[@]} -ge 6 ] || { echo "FAIL: air-bench list has ${#benches[@]} entries"; fails=$((fails + 1)); }
for b in "${benches[@]}"; do
  expect 2 "$air_bench" "$b" --no-such-option
done

echo "$count cases, $fails failed"
[ "$fails" -eq 0 ]
