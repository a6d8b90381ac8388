#!/usr/bin/env bash
# schedule.sh AIR_RUN AIRC SAMPLES_DIR DATA_DIR - air-run from compiled schedules:
# `airc compile` turns each program into an .airbin, and air-run gives the same
# output bytes from the .mlir (schedule compiled in process), from the .airbin
# and with --no-schedule (the dynamic path). --verbose describes the schedule.
set -u
air_run=$1 airc=$2 samples=$3 data=$4
label=schedule
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

if ! "$airc" help compile >/dev/null 2>&1; then
  echo "SKIP: this airc has no compile command, so there is no .airbin to run"
  exit 77
fi

# FILE ENTRY OUTPUTS...: compile, run three ways, compare every output.
check() {
  local file=$1 entry=$2; shift 2
  local name; name=$(basename "$file" .mlir)
  run 0 "$airc" compile "$file" --target cpu --entry "$entry" -o "$name.airbin"
  local outs_m=() outs_b=() outs_d=()
  for i in "$@"; do
    outs_m+=(--output "$i=$name.m$i.npy")
    outs_b+=(--output "$i=$name.b$i.npy")
    outs_d+=(--output "$i=$name.d$i.npy")
  done
  run 0 "$air_run" "$file" --entry "$entry" --random=5 "${outs_m[@]}"
  run 0 "$air_run" "$name.airbin" --random=5 -v "${outs_b[@]}"
  err_has "^air-run: schedule of @$entry for cpu: [0-9]+ commands in [0-9]+ waves"
  err_has "transient arena [0-9]+ bytes"
  err_has "^air-run:   queue 0 \\(host\\): [0-9]+ wave"
  run 0 "$air_run" "$file" --entry "$entry" --random=5 --no-schedule -v "${outs_d[@]}"
  err_has "runs the dynamic path \\(--no-schedule\\)"
  for i in "$@"; do
    cmp -s "$name.m$i.npy" "$name.b$i.npy" || fail "$name: output $i differs between .mlir and .airbin"
    cmp -s "$name.m$i.npy" "$name.d$i.npy" || fail "$name: output $i differs with --no-schedule"
  done
}

check "$samples/vector_add.mlir" vector_add 2
check "$samples/pipeline.mlir" scale_offset 1
check "$samples/matmul_4x4.mlir" matmul_512 2
check "$data/sched_exec/transients.mlir" transients 1

# The transient arena of an .airbin is reported; a corrupt .airbin is a located
# error, not a crash.
run 0 "$air_run" transients.airbin --random -v
err_has "transient arena 2048 bytes \\(aligned to 64\\)"
head -c 300 transients.airbin >cut.airbin
run 1 "$air_run" cut.airbin
err_has "^cut\\.airbin: error: "
echo "ok"
