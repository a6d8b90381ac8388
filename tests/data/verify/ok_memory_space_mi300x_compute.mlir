// RULE: none
// TARGET: mi300x
// On mi300x a herd may compute on L2 (LDS) directly (spec 4.2).
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<64xf32, 1>
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%b=%l2) : memref<64xf32, 1> {
        %cst = arith.constant 0.0 : f32
        linalg.fill ins(%cst : f32) outs(%b : memref<64xf32, 1>)
      }
    }
  }
  return
}
