// A 5x4 herd: 20 PEs, more than npu1's 16 compute tiles.
func.func @big() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @seg {
      %c5 = arith.constant 5 : index
      %c4 = arith.constant 4 : index
      air.herd @wide tile (%x, %y) in (%sx=%c5, %sy=%c4) {
      }
    }
  }
  return
}
