// RULE: memory-space
// TARGET: npu1
// On an NPU a PE computes on its L1 memory only; the L2 buffer must be copied in.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<64xf32, 1>
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%b=%l2) : memref<64xf32, 1> {
        %cst = arith.constant 0.0 : f32
        linalg.fill ins(%cst : f32) outs(%b : memref<64xf32, 1>) // ERROR
      }
    }
  }
  return
}
