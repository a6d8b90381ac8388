// RULE: undeclared-channel
air.channel @c [2]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c2 = arith.constant 2 : index
      %b = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async @c[%c2] (%b[] [] []) : (memref<64xf32, 1>) // ERROR
    }
  }
  return
}
