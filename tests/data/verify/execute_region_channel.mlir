// RULE: execute-region
air.channel @c [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %b = memref.alloc() : memref<64xf32, 1>
      %e = air.execute {
        air.channel.put @c[%c0] (%b[] [] []) : (memref<64xf32, 1>) // ERROR
      }
    }
  }
  return
}
