// RULE: structure
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c0, %sy=%c1) { // ERROR
      }
    }
  }
  return
}
