// RULE: deadlock
// The only put comes after the blocking get in the same tile.
air.channel @C [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0 = arith.constant 0 : index
        %a = memref.alloc() : memref<64xf32, 2>
        air.channel.get @C[%c0] (%a[] [] []) : (memref<64xf32, 2>) // ERROR
        air.channel.put @C[%c0] (%a[] [] []) : (memref<64xf32, 2>)
      }
    }
  }
  return
}
