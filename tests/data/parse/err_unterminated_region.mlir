// expect-error: 7:1: expected '}' to close the region opened at 4:34
func.func @f() {
  %c0 = arith.constant 0 : index
  %0 = air.launch async () in () {
    %c1 = arith.constant 1 : index

