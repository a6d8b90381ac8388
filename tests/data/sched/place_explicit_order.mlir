// @pair has two instances; only the first has a fixed origin (columns 0-1).
// @fixed, written after it, asks for columns 2-3: the free second instance of
// @pair must not take those tiles first.
func.func @order() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    %c2l = arith.constant 2 : index
    %c1l = arith.constant 1 : index
    air.segment @pair unroll(%u, %v) in (%nu=%c2l, %nv=%c1l) attributes {x_loc = 0 : i64, y_loc = 2 : i64, x_size = 2 : i64, y_size = 4 : i64} {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      air.herd @ph tile (%x, %y) in (%sx=%c2, %sy=%c4) {
      }
    }
    air.segment @fixed x_loc=2 y_loc=2 x_size=2 y_size=2 {
      %c2 = arith.constant 2 : index
      air.herd @fh tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
  }
  return
}
