// RULE: token-list
// Data-movement ops take dependency lists only; affinity belongs on launch,
// segment and herd.
air.channel @c [1]
func.func @f() {
  air.launch () in () {
    %t = air.token.alloc : !air.token
    air.segment @s args(%tt=%t) : !air.token {
      %c0 = arith.constant 0 : index
      %b = memref.alloc() : memref<64xf32, 1>
      %p = air.channel.put async [affinity = [%tt]] @c[%c0] (%b[] [] []) : (memref<64xf32, 1>) // ERROR
      %g = air.channel.get async @c[%c0] (%b[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
