// expect-error: 6:28: use of undefined value '%nowhere'
func.func @f() {
  %c1 = arith.constant 1 : index
  air.launch () in () {
    air.segment {
      %h = air.herd async [%nowhere] tile (%x) in (%sx=%c1) {
      }
    }
  }
  return
}
