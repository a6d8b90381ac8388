// @a covers columns 0-1 rows 2-3; @b, concurrent with it (and in the same
// launch, so co-resident anyway), asks for columns 1-2 rows 3-4: the two
// explicit rectangles overlap.
func.func @clash() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    %co = air.token.alloc : !air.token
    %sa = air.segment @a async x_loc=0 y_loc=2 x_size=2 y_size=2 [concurrency = [%co]] {
      %c2 = arith.constant 2 : index
      air.herd @ha tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
    %sb = air.segment @b async x_loc=1 y_loc=3 x_size=2 y_size=2 [concurrency = [%co]] {
      %c2 = arith.constant 2 : index
      air.herd @hb tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
  }
  return
}
