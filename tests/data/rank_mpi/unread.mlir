// More puts than gets across processes (tests/test_rank_wire.c): every rank
// sends one transfer to the next rank's index, which that rank reads, and then
// a number of extra transfers it computes from its data (one here: x[0] + 1 with
// x zeros, so no verifier counts them) that nobody reads (depth 2, so they fit).
// The run ends with one transfer unread per index; the process holding each
// index (the receiving rank's) reports it, as one process would.
air.channel @twice [64] {depth = 2}
func.func @unread(%nr: index, %a: memref<4xi32>) {
  air.rank (%r) in (%n=%nr) args(%x=%a) : memref<4xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = arith.addi %r, %c1 : index
    %next = arith.remui %s, %n : index
    %v = memref.load %x[%c0] : memref<4xi32>
    %vi = arith.index_cast %v : i32 to index
    %k = arith.addi %vi, %c1 : index
    air.channel.put @twice[%next] (%x[] [] []) : (memref<4xi32>)
    air.channel.get @twice[%r] (%x[] [] []) : (memref<4xi32>)
    scf.for %i = %c0 to %k step %c1 {
      air.channel.put @twice[%next] (%x[] [] []) : (memref<4xi32>)
    }
  }
  return
}
