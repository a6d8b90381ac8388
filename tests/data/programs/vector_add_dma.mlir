// c = a + b over 1024 i32 elements on a 4x1 herd. Each tile moves its 256-element
// slice between L3 and L1 with air.dma_memcpy_nd and adds in an scf.for.
#map = affine_map<()[s0] -> (s0 * 256)>
module {
  func.func @vector_add(%arg0: memref<1024xi32>, %arg1: memref<1024xi32>, %arg2: memref<1024xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg3) in (%arg4=%c1) args(%arg5=%arg0, %arg6=%arg1, %arg7=%arg2) : memref<1024xi32>, memref<1024xi32>, memref<1024xi32> attributes {id = 3 : i32} {
      %1 = air.segment @vecadd_seg async  args(%arg8=%arg5, %arg9=%arg6, %arg10=%arg7) : memref<1024xi32>, memref<1024xi32>, memref<1024xi32> attributes {id = 2 : i32} {
        %c4 = arith.constant 4 : index
        %c1_0 = arith.constant 1 : index
        %2 = air.herd @herd_0 async  tile (%arg11, %arg12) in (%arg13=%c4, %arg14=%c1_0) args(%arg15=%arg8, %arg16=%arg9, %arg17=%arg10) : memref<1024xi32>, memref<1024xi32>, memref<1024xi32> attributes {id = 1 : i32} {
          %c0 = arith.constant 0 : index
          %c1_1 = arith.constant 1 : index
          %c256 = arith.constant 256 : index
          %async_token, %results = air.execute -> (index) {
            %7 = affine.apply #map()[%arg11]
            air.execute_terminator %7 : index
          } {id = 1 : i32}
          %async_token_2, %results_3 = air.execute -> (memref<256xi32, 2>) {
            %alloc = memref.alloc() : memref<256xi32, 2>
            air.execute_terminator %alloc : memref<256xi32, 2>
          } {id = 2 : i32}
          %async_token_4, %results_5 = air.execute -> (memref<256xi32, 2>) {
            %alloc = memref.alloc() : memref<256xi32, 2>
            air.execute_terminator %alloc : memref<256xi32, 2>
          } {id = 3 : i32}
          %async_token_6, %results_7 = air.execute -> (memref<256xi32, 2>) {
            %alloc = memref.alloc() : memref<256xi32, 2>
            air.execute_terminator %alloc : memref<256xi32, 2>
          } {id = 4 : i32}
          %3 = air.dma_memcpy_nd async [%async_token, %async_token_2] (%results_3[] [] [], %arg15[%results] [%c256] [%c1_1]) {id = 1 : i32} : (memref<256xi32, 2>, memref<1024xi32>)
          %4 = air.dma_memcpy_nd async [%async_token, %async_token_4] (%results_5[] [] [], %arg16[%results] [%c256] [%c1_1]) {id = 2 : i32} : (memref<256xi32, 2>, memref<1024xi32>)
          %5 = air.execute [%3, %4, %async_token_6] {
            scf.for %arg18 = %c0 to %c256 step %c1_1 {
              %7 = memref.load %results_3[%arg18] : memref<256xi32, 2>
              %8 = memref.load %results_5[%arg18] : memref<256xi32, 2>
              %9 = arith.addi %7, %8 : i32
              memref.store %9, %results_7[%arg18] : memref<256xi32, 2>
            }
          } {id = 5 : i32}
          %6 = air.dma_memcpy_nd async [%5] (%arg17[%results] [%c256] [%c1_1], %results_7[%c0] [%c256] [%c1_1]) {id = 3 : i32} : (memref<1024xi32>, memref<256xi32, 2>)
          %async_token_8 = air.execute [%5] {
            memref.dealloc %results_3 : memref<256xi32, 2>
            memref.dealloc %results_5 : memref<256xi32, 2>
          } {id = 6 : i32}
          %async_token_9 = air.execute [%6] {
            memref.dealloc %results_7 : memref<256xi32, 2>
          } {id = 7 : i32}
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
