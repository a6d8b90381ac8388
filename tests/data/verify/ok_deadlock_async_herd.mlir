// RULE: none
// The herd is async, so the segment reads while the herd sends.
air.channel @C [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      %h = air.herd @h async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0_0 = arith.constant 0 : index
        %m = memref.alloc() : memref<64xf32, 2>
        air.channel.put @C[%c0_0] (%m[] [] []) : (memref<64xf32, 2>)
      }
      air.channel.get @C[%c0] (%buf[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
