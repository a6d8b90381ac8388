// RULE: none
// Herd @two sends on @a before it waits on @b: the chain is acyclic.
air.channel @a [1]
air.channel @b [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %h1 = air.herd @one async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0 = arith.constant 0 : index
        %m = memref.alloc() : memref<64xf32, 2>
        air.channel.get @a[%c0] (%m[] [] []) : (memref<64xf32, 2>)
        air.channel.put @b[%c0] (%m[] [] []) : (memref<64xf32, 2>)
      }
      %h2 = air.herd @two async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0 = arith.constant 0 : index
        %m = memref.alloc() : memref<64xf32, 2>
        air.channel.put @a[%c0] (%m[] [] []) : (memref<64xf32, 2>)
        air.channel.get @b[%c0] (%m[] [] []) : (memref<64xf32, 2>)
      }
    }
  }
  return
}
