// RULE: nesting
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c1_0 = arith.constant 1 : index
        air.herd @h2 tile (%a, %b) in (%sa=%c1_0, %sb=%c1_0) { // ERROR
        }
      }
    }
  }
  return
}
