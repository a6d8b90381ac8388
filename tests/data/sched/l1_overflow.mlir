// One herd PE allocates 80 KiB of L1; npu1 tiles have 64 KiB.
func.func @l1() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @seg {
      %c2 = arith.constant 2 : index
      air.herd @hungry tile (%x, %y) in (%sx=%c2, %sy=%c2) {
        %t, %buf = air.execute -> (memref<20480xf32, 2>) {
          %alloc = memref.alloc() : memref<20480xf32, 2>
          air.execute_terminator %alloc : memref<20480xf32, 2>
        }
        %d = air.execute [%t] {
          memref.dealloc %buf : memref<20480xf32, 2>
        }
      }
    }
  }
  return
}
