// RULE: none
// An async put and an async get with no dependency between them run
// concurrently, so even a depth-1 rendezvous completes.
air.channel @C [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %a = memref.alloc() : memref<64xf32, 1>
      %b = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async @C[%c0] (%a[] [] []) : (memref<64xf32, 1>)
      %g = air.channel.get async @C[%c0] (%b[] [] []) : (memref<64xf32, 1>)
      air.wait_all [%p, %g]
    }
  }
  return
}
