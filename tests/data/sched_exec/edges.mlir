// Orderings the schedule path must honour itself.
// @ordered: the blocking put and the get are one channel group, so they share a
// wave, and the put (an op without a token: a barrier; depth 2 lets it complete
// alone) must finish before the get starts - an edge inside the wave.
// @affinity: the launches name an affinity token no edge orders them after (an
// affinity list names partners, not predecessors): each waits for the
// air.token.alloc that makes it, then they run one at a time.
air.channel @ch [1] {depth = 2}
func.func private @busy(index)
func.func @ordered(%a: memref<64xi32>, %b: memref<64xi32>) {
  air.channel.put @ch[] (%a[] [] []) : (memref<64xi32>)
  %g = air.channel.get async @ch[] (%b[] [] []) : (memref<64xi32>)
  air.wait_all [%g]
  return
}
func.func @affinity(%o: memref<8xi32>) {
  %g = air.token.alloc : !air.token
  %l0 = air.launch async args(%x=%o) : memref<8xi32> [affinity = [%g]] {
    air.segment @s0 {
      %c1 = arith.constant 1 : index
      air.herd @h0 tile (%tx) in (%sx=%c1) {
        %c0 = arith.constant 0 : index
        func.call @busy(%c0) : (index) -> ()
      }
    }
  }
  %l1 = air.launch async args(%y=%o) : memref<8xi32> [affinity = [%g]] {
    air.segment @s1 {
      %c1 = arith.constant 1 : index
      air.herd @h1 tile (%tx) in (%sx=%c1) {
        %c0 = arith.constant 0 : index
        func.call @busy(%c0) : (index) -> ()
      }
    }
  }
  air.wait_all [%l0, %l1]
  return
}
