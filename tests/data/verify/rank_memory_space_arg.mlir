// RULE: memory-space
// Each rank gets a copy of its L3 arguments; an L2 buffer is no rank argument.
func.func @f(%a: memref<64xf32, 1>) {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) args(%x=%a) : memref<64xf32, 1> { // ERROR
  }
  return
}
