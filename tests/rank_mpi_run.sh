#!/usr/bin/env bash
# rank_mpi_run.sh AIR_RUN MPIEXEC DATA NP - air-run under `mpiexec -np NP` against
# air-run in one process (tests/rank.cmake; test_rank_run checks the in-process
# values themselves):
#   - the symmetric-heap programs give every rank the same output file in both
#     modes ({rank} outputs, each written by the process that ran the rank);
#   - the failures end every process with the error, never a hang: channels
#     between ranks in different processes (ring, message, deadlock) are refused
#     naming the channel, a deadlock in one process while its peer waits at a
#     collective is reported, and --timeout ends a run whose peer computes too
#     long.
set -uo pipefail
run=$1 mpiexec=$2 data=$3 np=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mpi() { timeout 100 "$mpiexec" --oversubscribe --timeout 90 -np "$np" "$@"; }

for prog in symmetric:exchange halo:halo; do
  file=${prog%%:*}
  outs=(--output "1=$out/mpi_${file}_{rank}.npy")
  refs=(--output "1=$out/ref_${file}_{rank}.npy")
  [ "$file" = symmetric ] && outs+=(--output "2=$out/mpi_${file}f_{rank}.npy") &&
    refs+=(--output "2=$out/ref_${file}f_{rank}.npy")
  "$run" "$data/rank/$file.mlir" --input 0=4 -q "${refs[@]}" || fail "$file in one process"
  mpi "$run" "$data/rank/$file.mlir" --input 0=4 -q "${outs[@]}" || fail "$file under mpiexec -np $np"
  for k in 0 1 2 3; do
    for ref in "$out"/ref_"${file}"*_"$k".npy; do
      got=${ref/ref_/mpi_}
      [ -f "$got" ] || fail "$file: no output $got for rank $k"
      cmp -s "$ref" "$got" || fail "$file: rank $k's $(basename "$got") differs from the in-process run"
    done
  done
  echo "ok: $file, 4 ranks over $np processes, every rank's output as in one process"
done

# Each failure: nonzero exit, the message, and every process ended (mpiexec returned).
expect_fail() {
  local what=$1 want=$2
  shift 2
  local t0=$SECONDS log="$out/log"
  if mpi "$run" "$@" -q >"$log" 2>&1; then cat "$log"; fail "$what: succeeded"; fi
  grep -q -- "$want" "$log" || { cat "$log"; fail "$what: no '$want' in the output"; }
  [ $((SECONDS - t0)) -lt 60 ] || fail "$what: took $((SECONDS - t0)) s"
  echo "ok: $what ended every process in $((SECONDS - t0)) s"
}
expect_fail "channel between processes" "air.channel @links between ranks is not carried across processes" \
  "$data/rank/ring.mlir" --input 0="$np" --random
# The rank-level channel programs of data/rank (message passing, a deadlock no
# verifier sees) are refused the same way until channels cross processes: the
# error names the channel and every process ends, never a hang.
expect_fail "message passing between processes" "air.channel @mail between ranks is not carried across processes" \
  "$data/rank/message.mlir" --input 0=4
expect_fail "deadlock between processes" "air.channel @mail between ranks is not carried across processes" \
  "$data/rank/deadlock.mlir" --input 0="$np"
expect_fail "deadlock in one process" "air.channel.get @mail\[0\] blocked: no put (rank [1-3])" \
  "$data/rank_mpi/stuck.mlir" --input 0="$np"
expect_fail "peer computing past --timeout" "longer than the watchdog allows\|did not finish within --timeout" \
  "$data/rank_mpi/spin.mlir" --input 0="$np" --timeout 2
