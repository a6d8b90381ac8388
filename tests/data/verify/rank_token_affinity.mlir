// RULE: token-list
// Ranks are processes: no affinity or concurrency between them.
func.func @f() {
  %c2 = arith.constant 2 : index
  %a = air.token.alloc : !air.token
  air.rank [affinity = [%a]] (%r) in (%n=%c2) { // ERROR
  }
  return
}
