// One op that runs long: a 2048x2048x768 linalg.matmul in L1 (about 0.08 s on the
// optimised cpu executor, 1.5 s under ASan). With --timeout shorter than that, the
// dispatch watchdog must fail the run naming the op and its location.
func.func @slow() {
  air.launch () in () {
    air.segment @seg {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %a = memref.alloc() : memref<2048x2048xf32, 2>
        %b = memref.alloc() : memref<2048x2048xf32, 2>
        %c = memref.alloc() : memref<2048x2048xf32, 2>
        linalg.matmul ins(%a, %b : memref<2048x2048xf32, 2>, memref<2048x2048xf32, 2>) outs(%c : memref<2048x2048xf32, 2>)
        memref.dealloc %a : memref<2048x2048xf32, 2>
        memref.dealloc %b : memref<2048x2048xf32, 2>
        memref.dealloc %c : memref<2048x2048xf32, 2>
      }
    }
  }
  return
}
