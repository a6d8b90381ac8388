// RULE: none
// TARGET: mi300x
// 8 x 4 = 32 PEs: exactly the limit of one mi300x CU.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c8 = arith.constant 8 : index
      %c4 = arith.constant 4 : index
      air.herd @h tile (%x, %y) in (%sx=%c8, %sy=%c4) {
      }
    }
  }
  return
}
