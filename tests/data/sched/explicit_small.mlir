// x_size=1 y_size=2 declares a 2-tile block, but the herd inside has 4 PEs.
func.func @small() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @cramped x_loc=0 y_loc=2 x_size=1 y_size=2 {
      %c2 = arith.constant 2 : index
      air.herd @h tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
  }
  return
}
