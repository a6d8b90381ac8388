// RULE: none
// One put reaches the four receivers of broadcast_shape [1, 4]: tiles (0, 0..3).
air.channel @c [1, 1] {broadcast_shape = [1, 4]}
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async @c[%c0, %c0] (%buf[] [] []) : (memref<64xf32, 1>)
      %h = air.herd @h async tile (%x, %y) in (%sx=%c1, %sy=%c4) {
        %b = memref.alloc() : memref<64xf32, 2>
        air.channel.get @c[%x, %y] (%b[] [] []) : (memref<64xf32, 2>)
      }
    }
  }
  return
}
