// RULE: none
// Constant indices in range, and tile-computed indices in range for every tile.
#map = affine_map<(d0) -> (3 - d0)>
air.channel @c [4]
air.channel @one [1, 1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      %h = air.herd @h async tile (%x, %y) in (%sx=%c4, %sy=%c1) {
        %i = affine.apply #map(%x)
        %b = memref.alloc() : memref<64xf32, 2>
        air.channel.put @c[%i] (%b[] [] []) : (memref<64xf32, 2>)
      }
      scf.for %k = %c0 to %c3 step %c1 {
        air.channel.get @c[%k] (%buf[] [] []) : (memref<64xf32, 1>)
      }
      air.channel.get @c[%c3] (%buf[] [] []) : (memref<64xf32, 1>)
      %p = air.channel.put async @one[] (%buf[] [] []) : (memref<64xf32, 1>)
      %g = air.channel.get async @one[%c0, %c0] (%buf[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
