// RULE: undeclared-channel
// @c has two dimensions: the put must give two indices.
air.channel @c [2, 2]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %b = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async @c[%c0] (%b[] [] []) : (memref<64xf32, 1>) // ERROR
    }
  }
  return
}
