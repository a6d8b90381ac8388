// An access pattern that leaves its buffer: each of 4 iterations copies 32
// elements starting at 16 * i out of a 64-element L3 buffer, so the last one
// reads 16 elements past its end. The offsets are dynamic, so the program
// verifies; running it is refused at the op, which the error names.
// VERIFY: ok
// RUN-ERROR: @out_of_buffer: air.dma_memcpy_nd
func.func @out_of_buffer(%arg0: memref<64xi32>, %arg1: memref<64xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<64xi32>, memref<64xi32> {
    air.segment @seg_0  args(%arg8=%arg6, %arg9=%arg7) : memref<64xi32>, memref<64xi32> {
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg10, %arg11) in (%arg12=%c1_0, %arg13=%c1_0) args(%arg14=%arg8, %arg15=%arg9) : memref<64xi32>, memref<64xi32> {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %c16 = arith.constant 16 : index
        %c32 = arith.constant 32 : index
        %alloc = memref.alloc() : memref<32xi32, 2>
        scf.for %arg16 = %c0 to %c4 step %c1_1 {
          %0 = arith.muli %arg16, %c16 : index
          air.dma_memcpy_nd (%alloc[] [] [], %arg14[%0] [%c32] [%c1_1]) : (memref<32xi32, 2>, memref<64xi32>)
          air.dma_memcpy_nd (%arg15[%c0] [%c32] [%c1_1], %alloc[] [] []) : (memref<64xi32>, memref<32xi32, 2>)
        }
        memref.dealloc %alloc : memref<32xi32, 2>
      }
    }
  }
  return
}
