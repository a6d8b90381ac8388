// An L2 buffer whose size is only known at run time.
func.func @dyn(%n: index) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%m=%n) : index {
    air.segment @seg args(%k=%m) : index {
      %t, %buf = air.execute -> (memref<?xf32, 1>) {
        %alloc = memref.alloc(%k) : memref<?xf32, 1>
        air.execute_terminator %alloc : memref<?xf32, 1>
      }
      %d = air.execute [%t] {
        memref.dealloc %buf : memref<?xf32, 1>
      }
    }
  }
  return
}
