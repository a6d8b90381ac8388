// RULE: deadlock
// Two herds each wait for the other's put before sending: a cycle through
// channels @a and @b.
air.channel @a [1]
air.channel @b [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %h1 = air.herd @one async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0 = arith.constant 0 : index
        %m = memref.alloc() : memref<64xf32, 2>
        air.channel.get @a[%c0] (%m[] [] []) : (memref<64xf32, 2>) // ERROR
        air.channel.put @b[%c0] (%m[] [] []) : (memref<64xf32, 2>)
      }
      %h2 = air.herd @two async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0 = arith.constant 0 : index
        %m = memref.alloc() : memref<64xf32, 2>
        air.channel.get @b[%c0] (%m[] [] []) : (memref<64xf32, 2>)
        air.channel.put @a[%c0] (%m[] [] []) : (memref<64xf32, 2>)
      }
    }
  }
  return
}
