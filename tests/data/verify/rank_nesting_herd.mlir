// RULE: nesting
// Not inside a herd either.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c2 = arith.constant 2 : index
        air.rank (%r) in (%n=%c2) { // ERROR
        }
      }
    }
  }
  return
}
