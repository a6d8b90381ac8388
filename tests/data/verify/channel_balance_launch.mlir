// RULE: channel-balance
// The host sends one block, but the launch has two instances and each reads
// one: counts multiply across the launch's iteration space.
air.channel @c [1] // ERROR
func.func @f(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = air.channel.put async @c[%c0] (%a[] [] []) : (memref<64xf32>)
  air.launch (%i) in (%n=%c2) {
    air.segment @s {
      %c0_0 = arith.constant 0 : index
      %b = memref.alloc() : memref<64xf32, 1>
      air.channel.get @c[%c0_0] (%b[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
