// RULE: nesting
// A herd must be nested inside a segment (spec 2.2).
func.func @f() {
  %c2 = arith.constant 2 : index
  air.launch () in () {
    %c1 = arith.constant 1 : index
    air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) { // ERROR
    }
  }
  return
}
