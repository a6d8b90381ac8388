// RULE: rank
// Every rank's copy must have the same size; this one grows with the rank id.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %c1 = arith.constant 1 : index
    %k = arith.addi %r, %c1 : index
    %s = memref.alloc(%k) {air.symmetric} : memref<?xf32> // ERROR
  }
  return
}
