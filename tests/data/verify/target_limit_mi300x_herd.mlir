// RULE: target-limit
// TARGET: mi300x
// A mi300x herd runs on one CU: at most 32 PEs (spec 4.2).
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c8 = arith.constant 8 : index
      air.herd @h tile (%x, %y) in (%sx=%c8, %sy=%c8) { // ERROR
      }
    }
  }
  return
}
