// A herd of 8x8 = 64 PEs: more than mi300x's 32 PEs per herd.
func.func @gpu() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @xcd {
      %c8 = arith.constant 8 : index
      air.herd @warps tile (%x, %y) in (%sx=%c8, %sy=%c8) {
      }
    }
  }
  return
}
