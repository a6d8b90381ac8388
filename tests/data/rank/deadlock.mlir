// A deadlock the verifier cannot see: each rank sends to the index it reads from
// %peer (data), and receives at its own. With every entry of %peer 0, every
// rank sends to rank 0 and no other rank is sent anything: the gets of ranks
// 1.. wait forever and so do the puts queued behind rank 0's one get (depth 1).
// The run fails naming @mail instead of hanging.
air.channel @mail [64]
func.func @deadlock(%nr: index, %peer: memref<64xi32>, %a: memref<4xf32>) {
  air.rank (%r) in (%n=%nr) args(%pp=%peer, %x=%a) : memref<64xi32>, memref<4xf32> {
    %pi = memref.load %pp[%r] : memref<64xi32>
    %p = arith.index_cast %pi : i32 to index
    %t = air.channel.put async @mail[%p] (%x[] [] []) : (memref<4xf32>)
    air.channel.get @mail[%r] (%x[] [] []) : (memref<4xf32>)
    air.wait_all [%t]
  }
  return
}
