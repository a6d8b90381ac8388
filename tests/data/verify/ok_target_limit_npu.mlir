// RULE: none
// TARGET: npu1
// The 32-PE limit is mi300x-specific; fitting the NPU array is the scheduler's job.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c8 = arith.constant 8 : index
      air.herd @h tile (%x, %y) in (%sx=%c8, %sy=%c8) {
      }
    }
  }
  return
}
