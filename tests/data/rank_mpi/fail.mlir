// An error in one process while the others wait for it on a channel (run under
// mpirun -np 2 and -np 4, tests/rank_mpi_run.sh): a ring of puts and gets in
// which the last rank sends to an index past the channel's end (an error at the
// op, in its process only; the index is computed, so no verifier sees it) and
// rank 0 waits for that transfer. The failing process prints the error and
// tells its peers (ABORT); every process ends with exit 1, none hangs.
// The get waits for the put's token: the put reads %x until its token fires, and
// the get may write %x as soon as it runs (a put that finds it waiting copies
// straight into it), so without the dependency the two would race on %x. Depth 2,
// so the verifier accepts the put running ahead of its get.
air.channel @pipe [64] {depth = 2}
func.func @fail(%nr: index, %a: memref<4xf32>) {
  air.rank (%r) in (%n=%nr) args(%x=%a) : memref<4xf32> {
    %c1 = arith.constant 1 : index
    %c99 = arith.constant 99 : index
    %last = arith.subi %n, %c1 : index
    %is_last = arith.cmpi eq, %r, %last : index
    %s = arith.addi %r, %c1 : index
    %bad = arith.addi %r, %c99 : index
    %next = arith.select %is_last, %bad, %s : index
    %t = air.channel.put async @pipe[%next] (%x[] [] []) : (memref<4xf32>)
    %g = air.channel.get async [%t] @pipe[%r] (%x[] [] []) : (memref<4xf32>)
    air.wait_all [%g]
  }
  return
}
