// RULE: dma-lists
air.channel @c [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %b = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async @c[%c0] (%b[%c0] [%c0] [%c1]) : (memref<64xf32, 1>) // ERROR
      %g = air.channel.get async @c[%c0] (%b[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
