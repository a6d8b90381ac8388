// A broadcast channel whose receivers read different numbers of transfers: the
// segment puts %n times on @b [1, 1], which reaches both tiles of a 2x1 herd
// (broadcast_shape [2, 1]); tile x gets x + 1 times. With %n = 2 and depth 2 both
// puts complete, tile 1 reads both and tile 0 only one: the run must end with an
// error naming the receiving index @b[0, 0] and its counts.
air.channel @b [1, 1] {broadcast_shape = [2, 1], depth = 2}
func.func @uneven(%n: index) {
  air.launch () in () args(%m=%n) : index {
    air.segment @s args(%sm=%m) : index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %buf = memref.alloc() : memref<4xi32, 1>
      %h = air.herd @h async tile (%x, %y) in (%sx=%c2, %sy=%c1) {
        %c0h = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %cnt = arith.addi %x, %c1h : index
        %b = memref.alloc() : memref<4xi32, 2>
        scf.for %k = %c0h to %cnt step %c1h {
          air.channel.get @b[%x, %y] (%b[] [] []) : (memref<4xi32, 2>)
        }
        memref.dealloc %b : memref<4xi32, 2>
      }
      scf.for %k = %c0 to %sm step %c1 {
        air.channel.put @b[%c0, %c0] (%buf[] [] []) : (memref<4xi32, 1>)
      }
      air.wait_all [%h]
      memref.dealloc %buf : memref<4xi32, 1>
    }
  }
  return
}
