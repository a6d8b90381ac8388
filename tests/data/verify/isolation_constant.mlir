// RULE: isolation
// Constants are values too: a segment cannot capture the launch's constant.
func.func @f() {
  air.launch () in () {
    %c4 = arith.constant 4 : index
    air.segment @s {
      air.herd @h tile (%x, %y) in (%sx=%c4, %sy=%c4) { // ERROR
      }
    }
  }
  return
}
