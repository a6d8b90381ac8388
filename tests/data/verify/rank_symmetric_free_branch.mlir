// RULE: rank
// Freeing a symmetric memref is collective too (as MPI_Win_free is).
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %s = memref.alloc() {air.symmetric} : memref<64xf32>
    %c1 = arith.constant 1 : index
    %o = arith.cmpi eq, %r, %c1 : index
    scf.if %o {
      memref.dealloc %s : memref<64xf32> // ERROR
    }
  }
  return
}
