// RULE: nesting
// Ranks do not nest: a rank space is one level.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %c2_0 = arith.constant 2 : index
    air.rank (%q) in (%m=%c2_0) { // ERROR
    }
  }
  return
}
