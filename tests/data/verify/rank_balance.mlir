// RULE: channel-balance
// Every rank sends to index 0 but each rank reads its own index: rank 1's get
// has no put, index 0 has two puts and one get.
air.channel @mail [2]
func.func @f(%a: memref<64xf32>) {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) args(%x=%a) : memref<64xf32> {
    %c0 = arith.constant 0 : index
    %t = air.channel.put async @mail[%c0] (%x[] [] []) : (memref<64xf32>)
    air.channel.get @mail[%r] (%x[] [] []) : (memref<64xf32>)
    air.wait_all [%t]
  }
  return
}
