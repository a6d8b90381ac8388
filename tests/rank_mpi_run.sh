#!/usr/bin/env bash
# rank_mpi_run.sh AIR_RUN MPIEXEC DATA NP - air-run under `mpiexec -np NP` against
# air-run in one process (tests/rank.cmake; test_rank_run checks the in-process
# values themselves):
#   - the symmetric-heap programs give every rank the same output file in both
#     modes ({rank} outputs, each written by the process that ran the rank);
#   - channels between ranks in different processes (ring, message passing),
#     4 and 8 ranks (blocks of ranks per process), give every rank the same
#     outputs as in one process;
#   - the failures end every process with the error, never a hang: a deadlock
#     across processes (every process reports it, naming the channel and the
#     ranks), a deadlock in one process while its peer waits at a collective,
#     an error in one process (its peers stop naming it), and --timeout ending a
#     run whose peer computes too long.
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

# Channels across processes: every rank's outputs as in one process.
for prog in ring:2:3 message:2:2; do
  IFS=: read -r file a1 a2 <<<"$prog"
  for nr in 4 8; do
    outs=(--output "$a1=$out/mpi_${file}${nr}a_{rank}.npy")
    refs=(--output "$a1=$out/ref_${file}${nr}a_{rank}.npy")
    [ "$a2" != "$a1" ] && outs+=(--output "$a2=$out/mpi_${file}${nr}b_{rank}.npy") &&
      refs+=(--output "$a2=$out/ref_${file}${nr}b_{rank}.npy")
    "$run" "$data/rank/$file.mlir" --input 0=$nr -q "${refs[@]}" 2>/dev/null ||
      fail "$file ($nr ranks) in one process"
    mpi "$run" "$data/rank/$file.mlir" --input 0=$nr -q "${outs[@]}" 2>/dev/null ||
      fail "$file ($nr ranks) under mpiexec -np $np"
    for ((k = 0; k < nr; ++k)); do
      for ref in "$out"/ref_"${file}${nr}"*_"$k".npy; do
        got=${ref/ref_/mpi_}
        [ -f "$got" ] || fail "$file: no output $got for rank $k"
        cmp -s "$ref" "$got" || fail "$file: rank $k's $(basename "$got") differs from the in-process run"
      done
    done
    echo "ok: $file, $nr ranks over $np processes, every rank's output as in one process"
  done
done
# The values themselves (test_rank_run checks them in process too): in the ring
# rank k receives k-1's id in y[0] and reads k+1's in z[0]; in message passing
# every rank but 0 receives 1..16.
i32_0() { od -An -t d4 -j 128 -N 4 "$1" | tr -d ' '; }
for ((k = 0; k < 8; ++k)); do
  [ "$(i32_0 "$out/mpi_ring8a_$k.npy")" = $(((k + 7) % 8)) ] || fail "ring: rank $k received the wrong id"
  [ "$(i32_0 "$out/mpi_ring8b_$k.npy")" = $(((k + 1) % 8)) ] || fail "ring: rank $k read the wrong peer"
done
want=$(printf '%s ' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
for ((k = 1; k < 8; ++k)); do
  got=$(od -An -t f4 -j 128 "$out/mpi_message8a_$k.npy" | tr -s ' \n' '  ' | sed 's/^ //')
  [ "$got" = "$want" ] || fail "message: rank $k received '$got'"
done
echo "ok: ring and message values per rank"

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
# A deadlock no verifier sees, across processes: found by the protocol (not the
# wall clock: well under --timeout's default of none), reported by every process.
expect_fail "deadlock across processes" "deadlock across processes: .*in process 0" \
  "$data/rank/deadlock.mlir" --input 0="$np"
grep -q "air.channel.get @mail\[1\] blocked: no put (rank 1)" "$out/log" ||
  { cat "$out/log"; fail "deadlock across processes: no line for rank 1's get"; }
expect_fail "deadlock across processes, 8 ranks" "air.channel.get @mail\[[1-7]\] blocked: no put (rank [1-7])" \
  "$data/rank/deadlock.mlir" --input 0=8
expect_fail "deadlock in one process" "air.channel.get @mail\[0\] blocked: no put (rank [1-3])" \
  "$data/rank_mpi/stuck.mlir" --input 0="$np"
expect_fail "error in one process" "index #0 is 1[0-9][0-9], outside \[0, 64)" \
  "$data/rank_mpi/fail.mlir" --input 0="$np"
grep -q "process [0-9] of the air.rank failed, so this one (process 0) stops" "$out/log" ||
  { cat "$out/log"; fail "error in one process: process 0 did not name it"; }
expect_fail "peer computing past --timeout" "longer than the watchdog allows\|did not finish within --timeout" \
  "$data/rank_mpi/spin.mlir" --input 0="$np" --timeout 2
