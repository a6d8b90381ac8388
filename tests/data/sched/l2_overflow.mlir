// A segment allocates 3 MiB of L2 (two buffers); npu1 has 4 x 512 KiB.
func.func @l2() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @fat {
      %t0, %a = air.execute -> (memref<512x1024xf32, 1>) {
        %alloc = memref.alloc() : memref<512x1024xf32, 1>
        air.execute_terminator %alloc : memref<512x1024xf32, 1>
      }
      %t1, %b = air.execute -> (memref<256x1024xf32, 1>) {
        %alloc = memref.alloc() : memref<256x1024xf32, 1>
        air.execute_terminator %alloc : memref<256x1024xf32, 1>
      }
      %d = air.execute [%t0, %t1] {
        memref.dealloc %a : memref<512x1024xf32, 1>
        memref.dealloc %b : memref<256x1024xf32, 1>
      }
    }
  }
  return
}
