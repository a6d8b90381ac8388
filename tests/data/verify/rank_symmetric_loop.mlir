// RULE: rank
// Rank r would allocate r times.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %r step %c1 {
      %s = memref.alloc() {air.symmetric} : memref<64xf32> // ERROR
    }
  }
  return
}
