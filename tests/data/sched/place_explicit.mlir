// Three co-resident segments on npu1: @left and @right at explicit origins
// (device rows: compute rows are 2..5), @free placed first-fit in what is left.
func.func @placed() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @left x_loc=0 y_loc=2 x_size=2 y_size=4 {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      air.herd @lh tile (%x, %y) in (%sx=%c2, %sy=%c4) {
      }
    }
    air.segment @right x_loc=2 y_loc=2 x_size=2 y_size=2 {
      %c2 = arith.constant 2 : index
      air.herd @rh tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
    air.segment @free {
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      air.herd @fh tile (%x, %y) in (%sx=%c1s, %sy=%c2) {
      }
    }
  }
  return
}
