// air.custom: a user op on L1 buffers inside a herd, async with dependencies
// and as a blocking op, run as the kernel its symbol names.
// VERIFY: ok
// RUN: @custom
module {
  func.func @custom(%arg0: memref<32xi32>, %arg1: memref<32xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<32xi32>, memref<32xi32> {
      %1 = air.segment @seg_0 async  args(%arg8=%arg6, %arg9=%arg7) : memref<32xi32>, memref<32xi32> {
        %c1_0 = arith.constant 1 : index
        %2 = air.herd @herd_0 async  tile (%arg10, %arg11) in (%arg12=%c1_0, %arg13=%c1_0) args(%arg14=%arg8, %arg15=%arg9) : memref<32xi32>, memref<32xi32> {
          %async_token, %results = air.execute -> (memref<32xi32, 2>) {
            %alloc = memref.alloc() : memref<32xi32, 2>
            air.execute_terminator %alloc : memref<32xi32, 2>
          }
          %3 = air.dma_memcpy_nd async [%async_token] (%results[] [] [], %arg14[] [] []) : (memref<32xi32, 2>, memref<32xi32>)
          %4 = air.custom @add_seven async [%3]  operands (%results) : memref<32xi32, 2> {id = 3 : i32}
          air.custom @add_seven [%4]  operands (%results) : memref<32xi32, 2>
          %5 = air.dma_memcpy_nd async [%4] (%arg15[] [] [], %results[] [] []) : (memref<32xi32>, memref<32xi32, 2>)
          %6 = air.execute [%5] {
            memref.dealloc %results : memref<32xi32, 2>
          }
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
