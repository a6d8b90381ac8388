// RULE: rank
// The symmetric heap is L3 memory.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %s = memref.alloc() {air.symmetric} : memref<64xf32, 1> // ERROR
  }
  return
}
