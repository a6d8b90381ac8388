#!/usr/bin/env bash
# compile.sh AIR_RUN AIRC SAMPLES_DIR DATA_DIR - compiled code against the
# interpreter (issue 14): air-run gives the same output bytes with the program's
# loops compiled in process (the default), with --no-compile (every body
# interpreted, linalg ops through their reference loops), and from an .airbin that
# carries the loops as x86-64 code (`airc compile`), run with and without that
# code. --verbose says which code ran.
set -u
air_run=$1 airc=$2 samples=$3 data=$4
label=compile
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

# FILE ENTRY OUTPUTS...: run four ways, compare every output.
check() {
  local file=$1 entry=$2; shift 2
  local name; name=$(basename "$file" .mlir)
  run 0 "$airc" compile "$file" --target cpu --entry "$entry" -o "$name.airbin"
  local outs_j=() outs_i=() outs_a=() outs_n=()
  for i in "$@"; do
    outs_j+=(--output "$i=$name.j$i.npy")
    outs_i+=(--output "$i=$name.i$i.npy")
    outs_a+=(--output "$i=$name.a$i.npy")
    outs_n+=(--output "$i=$name.n$i.npy")
  done
  run 0 "$air_run" "$file" --entry "$entry" --random=7 -v "${outs_j[@]}"
  err_has "^air-run: compiled code"
  run 0 "$air_run" "$file" --entry "$entry" --random=7 --no-compile -v "${outs_i[@]}"
  err_has "^air-run: compiled code: not used \\(--no-compile\\)"
  run 0 "$air_run" "$name.airbin" --entry "$entry" --random=7 -v "${outs_a[@]}"
  run 0 "$air_run" "$name.airbin" --entry "$entry" --random=7 --no-compile "${outs_n[@]}"
  for i in "$@"; do
    cmp -s "$name.j$i.npy" "$name.i$i.npy" || fail "$name: output $i differs with --no-compile"
    cmp -s "$name.j$i.npy" "$name.a$i.npy" || fail "$name: output $i differs from the .airbin's code"
    cmp -s "$name.j$i.npy" "$name.n$i.npy" || fail "$name: output $i differs from the .airbin, interpreted"
  done
}

check "$samples/vector_add.mlir" vector_add 2
check "$samples/pipeline.mlir" scale_offset 1
check "$samples/matmul_4x4.mlir" matmul_512 2
check "$samples/matmul_4x4_bf16.mlir" matmul_512_bf16 2
check "$data/programs/linalg_generic_bf16.mlir" gemm_bias_bf16 2 3
check "$data/programs/affine_tile_transpose.mlir" transpose 1

# The vector_add sample's loop runs compiled, from the JIT and from the .airbin.
run 0 "$air_run" "$samples/vector_add.mlir" --random -v
err_has "^air-run: compiled code \\(jit, llvm-16\\): [1-9][0-9]* loops"
run 0 "$air_run" vector_add.airbin --random -v
err_has "^air-run: compiled code \\(artifact\\): [1-9][0-9]* loops"
echo "ok"
