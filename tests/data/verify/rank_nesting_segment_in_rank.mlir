// RULE: nesting
// A segment inside a rank still needs a launch around it.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    air.segment @s { // ERROR
    }
  }
  return
}
