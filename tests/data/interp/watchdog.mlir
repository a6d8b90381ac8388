// A kernel that runs far longer than the watchdog allows.
func.func private @slow(index)
func.func @stuck() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @s {
      %c1s = arith.constant 1 : index
      air.herd @h tile (%x) in (%sx=%c1s) {
        %c0 = arith.constant 0 : index
        func.call @slow(%c0) : (index) -> ()
      }
    }
  }
  return
}
