// RULE: memory-space
// TARGET: npu1
// affine.load and affine.store are compute like memref.load/store: L1 only in a herd.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<8x8xf32, 1>
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%b=%l2) : memref<8x8xf32, 1> {
        %v = affine.load %b[%x, %y + 1] : memref<8x8xf32, 1> // ERROR
        affine.store %v, %b[%y, symbol(%x)] : memref<8x8xf32, 1> // ERROR
      }
    }
  }
  return
}
