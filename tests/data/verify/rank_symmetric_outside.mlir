// RULE: rank
// A symmetric allocation is collective over the ranks of an air.rank.
func.func @f() {
  %s = memref.alloc() {air.symmetric} : memref<64xf32> // ERROR
  return
}
