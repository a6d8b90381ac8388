// RULE: channel-balance
// Only tile (0, 0) sends, but the segment expects one block from every tile.
#set = affine_set<(d0, d1) : (d0 == 0, d1 == 0)>
air.channel @c [2, 2] // ERROR
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
          air.channel.put @c[%x, %y] (%b[] [] []) : (memref<64xf32, 2>)
        }
      }
      scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1, %c1) {
        %g = air.channel.get async @c[%i, %j] (%buf[] [] []) : (memref<64xf32, 1>)
      }
    }
  }
  return
}
