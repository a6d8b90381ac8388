// RULE: rank
// Symmetric memrefs are made at rank level, not inside a launch.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    air.launch () in () {
      %s = memref.alloc() {air.symmetric} : memref<64xf32> // ERROR
    }
  }
  return
}
