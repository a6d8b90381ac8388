// Two 1.5 MiB L2 buffers. In @reuse the second is allocated only after the
// first is freed (its execute depends on the dealloc), so 1.5 MiB is live at a
// time and npu1's 2 MiB suffice; in @overlap nothing orders them: 3 MiB.
func.func @reuse() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @reuse {
      %t0, %a = air.execute -> (memref<384x1024xf32, 1>) {
        %alloc = memref.alloc() : memref<384x1024xf32, 1>
        air.execute_terminator %alloc : memref<384x1024xf32, 1>
      }
      %d0 = air.execute [%t0] {
        memref.dealloc %a : memref<384x1024xf32, 1>
      }
      %t1, %b = air.execute [%d0] -> (memref<384x1024xf32, 1>) {
        %alloc = memref.alloc() : memref<384x1024xf32, 1>
        air.execute_terminator %alloc : memref<384x1024xf32, 1>
      }
      %d1 = air.execute [%t1] {
        memref.dealloc %b : memref<384x1024xf32, 1>
      }
      air.wait_all [%d1]
    }
  }
  air.launch (%l) in (%nl=%c1) {
    air.segment @overlap {
      %t0, %a = air.execute -> (memref<384x1024xf32, 1>) {
        %alloc = memref.alloc() : memref<384x1024xf32, 1>
        air.execute_terminator %alloc : memref<384x1024xf32, 1>
      }
      %d0 = air.execute [%t0] {
        memref.dealloc %a : memref<384x1024xf32, 1>
      }
      %t1, %b = air.execute -> (memref<384x1024xf32, 1>) {
        %alloc = memref.alloc() : memref<384x1024xf32, 1>
        air.execute_terminator %alloc : memref<384x1024xf32, 1>
      }
      %d1 = air.execute [%t1] {
        memref.dealloc %b : memref<384x1024xf32, 1>
      }
      air.wait_all [%d0, %d1]
    }
  }
  return
}
