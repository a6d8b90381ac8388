// RULE: memory-space
// TARGET: mi300x
// The rule holds on mi300x too: a GPU herd computes on LDS through linalg, but an
// element access to L3 from a PE is a cross-level access.
func.func @g(%arg0: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  air.launch (%a) in (%na=%c1) args(%l3=%arg0) : memref<64xf32> {
    air.segment @s args(%m=%l3) : memref<64xf32> {
      %c1_0 = arith.constant 1 : index
      air.herd @h tile (%x) in (%sx=%c1_0) args(%g=%m) : memref<64xf32> {
        %c0 = arith.constant 0 : index
        %v = memref.load %g[%c0] : memref<64xf32> // ERROR
      }
    }
  }
  return
}
