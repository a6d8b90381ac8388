// RULE: channel-balance
// Tile x puts to @c[x], but the segment reads @c[0] four times: indices 1..3
// are never read and index 0 is read four times.
air.channel @c [4] // ERROR
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      %h = air.herd @h async tile (%x, %y) in (%sx=%c4, %sy=%c1) {
        %b = memref.alloc() : memref<64xf32, 2>
        air.channel.put @c[%x] (%b[] [] []) : (memref<64xf32, 2>)
      }
      scf.for %k = %c0 to %c4 step %c1 {
        air.channel.get @c[%c0] (%buf[] [] []) : (memref<64xf32, 1>)
      }
    }
  }
  return
}
