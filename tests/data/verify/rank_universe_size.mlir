// RULE: rank
// A universe of 4 ranks run by a rank space of 2.
func.func @f() {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %u = air.universe.alloc(%c4) : !air.universe
  air.rank universe(%u) (%r) in (%n=%c2) { // ERROR
  }
  return
}
