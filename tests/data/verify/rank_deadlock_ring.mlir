// RULE: deadlock
// A ring whose every rank gets before it puts: no rank ever puts.
air.channel @ring [4]
func.func @f(%a: memref<64xf32>) {
  %c4 = arith.constant 4 : index
  air.rank (%r) in (%n=%c4) args(%x=%a) : memref<64xf32> {
    %c1 = arith.constant 1 : index
    %c4_0 = arith.constant 4 : index
    %s = arith.addi %r, %c1 : index
    %next = arith.remui %s, %c4_0 : index
    air.channel.get @ring[%r] (%x[] [] []) : (memref<64xf32>) // ERROR
    air.channel.put @ring[%next] (%x[] [] []) : (memref<64xf32>)
  }
  return
}
