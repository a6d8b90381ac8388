// A failing input (tests/bad_inputs/README.md): three puts on a depth-1 channel
// and two gets, the put count an argument; the run ends with a transfer unread,
// which must be an error naming the channel and both counts.
// air-run-args: --input 0=3
air.channel @left [1]
func.func @left_over(%n: index) {
  air.launch () in () args(%m=%n) : index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = memref.alloc() : memref<8xf32>
    %start = air.wait_all async
    %sent = scf.for %k = %c0 to %m step %c1 iter_args(%t = %start) -> (!air.token) {
      %p = air.channel.put async [%t] @left[%c0] (%buf[] [] []) : (memref<8xf32>)
      scf.yield %p : !air.token
    }
    air.segment @taker {
      %c0_0 = arith.constant 0 : index
      %c1_0 = arith.constant 1 : index
      %c2_0 = arith.constant 2 : index
      %b = memref.alloc() : memref<8xf32, 1>
      scf.for %k = %c0_0 to %c2_0 step %c1_0 {
        air.channel.get @left[%c0_0] (%b[] [] []) : (memref<8xf32, 1>)
      }
      memref.dealloc %b : memref<8xf32, 1>
    }
    air.wait_all [%sent]
    memref.dealloc %buf : memref<8xf32>
  }
  return
}
