// RULE: undeclared-channel
// Tile x of a 4-wide herd puts to index x + 1: the last tile is out of range.
#map = affine_map<(d0) -> (d0 + 1)>
air.channel @c [4]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      air.herd @h tile (%x, %y) in (%sx=%c4, %sy=%c1) {
        %i = affine.apply #map(%x)
        %b = memref.alloc() : memref<64xf32, 2>
        air.channel.put @c[%i] (%b[] [] []) : (memref<64xf32, 2>) // ERROR
      }
    }
  }
  return
}
