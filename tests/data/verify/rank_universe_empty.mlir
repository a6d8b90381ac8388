// RULE: rank
// A universe with no rank.
func.func @f() {
  %c0 = arith.constant 0 : index
  %u = air.universe.alloc(%c0) : !air.universe // ERROR
  return
}
