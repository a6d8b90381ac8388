// RULE: deadlock
// Async ops run concurrently unless ordered: here the get depends on the put's
// token, so with depth 1 the put waits for a get that waits for the put.
air.channel @C [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %a = memref.alloc() : memref<64xf32, 1>
      %b = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async @C[%c0] (%a[] [] []) : (memref<64xf32, 1>) // ERROR
      %g = air.channel.get async [%p] @C[%c0] (%b[] [] []) : (memref<64xf32, 1>)
      air.wait_all [%g]
    }
  }
  return
}
