// RULE: rank
// Only rank 0 would allocate: not lockstep.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %c0 = arith.constant 0 : index
    %z = arith.cmpi eq, %r, %c0 : index
    scf.if %z {
      %s = memref.alloc() {air.symmetric} : memref<64xf32> // ERROR
    }
  }
  return
}
