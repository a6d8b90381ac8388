// RULE: nesting
// air.rank is the outermost level: it holds launches, never sits in one.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c2 = arith.constant 2 : index
      air.rank (%r) in (%n=%c2) { // ERROR
      }
    }
  }
  return
}
