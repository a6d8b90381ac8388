// RULE: deadlock
// The herd is blocking: the segment reads the channel only after the herd has
// finished, but the herd's put cannot finish before someone reads.
air.channel @C [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0_0 = arith.constant 0 : index
        %m = memref.alloc() : memref<64xf32, 2>
        air.channel.put @C[%c0_0] (%m[] [] []) : (memref<64xf32, 2>) // ERROR
      }
      air.channel.get @C[%c0] (%buf[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
