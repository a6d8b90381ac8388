// RULE: structure
// A herd is a 1D or 2D array of PEs (spec 2.3).
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y, %z) in (%sx=%c1, %sy=%c1, %sz=%c1) { // ERROR
      }
    }
  }
  return
}
