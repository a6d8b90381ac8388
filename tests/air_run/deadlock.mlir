// A get that no put ever matches: the launch puts on @starved %n times but the
// segment gets %n + 1 times. The trip counts are known only at run time, so the
// verifier accepts the program; the executor must fail the run naming the
// blocked get on @starved instead of hanging. air-run passes %n with --input 0=N.
air.channel @starved [1]
func.func @starve(%n: index) {
  air.launch () in () args(%m=%n) : index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = memref.alloc() : memref<64xf32>
    %start = air.wait_all async
    %sent = scf.for %k = %c0 to %m step %c1 iter_args(%t = %start) -> (!air.token) {
      %p = air.channel.put async [%t] @starved[%c0] (%buf[] [] []) : (memref<64xf32>)
      scf.yield %p : !air.token
    }
    air.segment @consumer args(%mm=%m) : index {
      %c0_0 = arith.constant 0 : index
      %c1_0 = arith.constant 1 : index
      %one_more = arith.addi %mm, %c1_0 : index
      %b = memref.alloc() : memref<64xf32, 1>
      scf.for %k = %c0_0 to %one_more step %c1_0 {
        air.channel.get @starved[%c0_0] (%b[] [] []) : (memref<64xf32, 1>)
      }
      memref.dealloc %b : memref<64xf32, 1>
    }
    air.wait_all [%sent]
    memref.dealloc %buf : memref<64xf32>
  }
  return
}
