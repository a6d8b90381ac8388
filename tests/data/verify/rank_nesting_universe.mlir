// RULE: nesting
// The universe is allocated at host level, outside the rank that runs on it.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %c2_0 = arith.constant 2 : index
    %u = air.universe.alloc(%c2_0) : !air.universe // ERROR
  }
  return
}
