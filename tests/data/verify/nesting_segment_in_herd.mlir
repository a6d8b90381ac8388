// RULE: nesting
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        air.segment @inner { // ERROR
        }
      }
    }
  }
  return
}
