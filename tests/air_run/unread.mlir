// More puts than gets: each of the 2 launch instances puts on @spill %n times
// (async, in a loop whose trip count is an argument, so the verifier cannot
// count them), its segment gets twice, and the channel holds one transfer (depth
// 1). With --input 0=3 the third put lands in the free slot and nobody reads it:
// the run must end with an error naming @spill[0] and both counts, as the spec
// requires puts and gets to balance. With 0=2 it is fine.
air.channel @spill [1]
func.func @overfill(%n: index) {
  %c2 = arith.constant 2 : index
  air.launch (%x) in (%nx=%c2) args(%m=%n) : index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = memref.alloc() : memref<16xf32>
    %start = air.wait_all async
    %sent = scf.for %k = %c0 to %m step %c1 iter_args(%t = %start) -> (!air.token) {
      %p = air.channel.put async [%t] @spill[%c0] (%buf[] [] []) : (memref<16xf32>)
      scf.yield %p : !air.token
    }
    air.segment @consumer {
      %c0_0 = arith.constant 0 : index
      %c1_0 = arith.constant 1 : index
      %c2_0 = arith.constant 2 : index
      %b = memref.alloc() : memref<16xf32, 1>
      scf.for %k = %c0_0 to %c2_0 step %c1_0 {
        air.channel.get @spill[%c0_0] (%b[] [] []) : (memref<16xf32, 1>)
      }
      memref.dealloc %b : memref<16xf32, 1>
    }
    air.wait_all [%sent]
    memref.dealloc %buf : memref<16xf32>
  }
  return
}
