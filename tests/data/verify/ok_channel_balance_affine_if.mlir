// RULE: none
// Tile (0, 0) sends on @first, the others on @rest; the segment reads exactly
// those: routing that depends on tile ids is resolved per tile.
#set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>
air.channel @first [1, 1]
air.channel @rest [2, 2]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      %h = air.herd @h async tile (%x, %y) in (%sx=%c2, %sy=%c2) {
        %b = memref.alloc() : memref<64xf32, 2>
        affine.if #set(%x, %y) {
          air.channel.put @first[%x, %y] (%b[] [] []) : (memref<64xf32, 2>)
        } else {
          air.channel.put @rest[%x, %y] (%b[] [] []) : (memref<64xf32, 2>)
        }
      }
      %g0 = air.channel.get async @first[%c0, %c0] (%buf[] [] []) : (memref<64xf32, 1>)
      %g1 = air.channel.get async @rest[%c0, %c1] (%buf[] [] []) : (memref<64xf32, 1>)
      %g2 = air.channel.get async @rest[%c1, %c0] (%buf[] [] []) : (memref<64xf32, 1>)
      %g3 = air.channel.get async @rest[%c1, %c1] (%buf[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
