// RULE: none
// The same ring with the put async: every rank's put waits for its neighbour's
// get, which every rank reaches.
air.channel @ring [4]
func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c4 = arith.constant 4 : index
  %u = air.universe.alloc(%c4) : !air.universe
  %done = air.rank async universe(%u) (%r) in (%n=%c4) args(%x=%a, %y=%b) : memref<64xf32>, memref<64xf32> {
    %c1 = arith.constant 1 : index
    %s = arith.addi %r, %c1 : index
    %next = arith.remui %s, %n : index
    %t = air.channel.put async @ring[%next] (%x[] [] []) : (memref<64xf32>)
    air.channel.get @ring[%r] (%y[] [] []) : (memref<64xf32>)
    air.wait_all [%t]
  }
  air.wait_all [%done]
  return
}
