// One op that runs long: a 1024x1024x1024 linalg.matmul in L1 (about 1 s on
// the cpu executor). With --timeout shorter than that, the dispatch watchdog
// must fail the run naming the op and its location.
func.func @slow() {
  air.launch () in () {
    air.segment @seg {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %a = memref.alloc() : memref<1024x1024xf32, 2>
        %b = memref.alloc() : memref<1024x1024xf32, 2>
        %c = memref.alloc() : memref<1024x1024xf32, 2>
        linalg.matmul ins(%a, %b : memref<1024x1024xf32, 2>, memref<1024x1024xf32, 2>) outs(%c : memref<1024x1024xf32, 2>)
        memref.dealloc %a : memref<1024x1024xf32, 2>
        memref.dealloc %b : memref<1024x1024xf32, 2>
        memref.dealloc %c : memref<1024x1024xf32, 2>
      }
    }
  }
  return
}
