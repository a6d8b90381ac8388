// RULE: none
// Segments may nest (MI3xx uses two levels) and herds sit in the inner one.
func.func @f() {
  air.launch () in () {
    %c8 = arith.constant 8 : index
    air.segment @xcd unroll (%i) in (%n=%c8) {
      %c4 = arith.constant 4 : index
      air.segment @cu unroll (%j) in (%m=%c4) {
        %c1 = arith.constant 1 : index
        air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        }
      }
    }
  }
  return
}
