module {
  aie.device(npu1_1col) {
    %t = aie.tile(0, 0)
    aie.shim_dma_allocation @in(MM2S, 0, 0)
    aie.shim_dma_allocation @out(S2MM, 1, 0)
    func.func @sequence(%arg0: memref<64x64xi32> {bufferization.writable}, %arg1: memref<4096xi32>) {
      %v = memref.subview %arg0[2, 0] [2, 64] [1, 1] : memref<64x64xi32> to memref<2x64xi32, strided<[64, 1], offset: 128>>
      %r = memref.reinterpret_cast %arg1 to offset: [1024], sizes: [1024], strides: [1] : memref<4096xi32> to memref<1024xi32, strided<[1], offset: 1024>>
      %w = memref.cast %r : memref<1024xi32, strided<[1], offset: 1024>> to memref<?xi32, strided<[1], offset: 1024>>
      aiex.npu.dma_memcpy_nd(%v[0, 0, 0, 0][1, 1, 2, 64][0, 0, 64, 1]) {id = 0 : i64, metadata = @in} : memref<2x64xi32, strided<[64, 1], offset: 128>>
      aiex.npu.dma_memcpy_nd(%w[0, 0, 0, 16][1, 1, 1, 1008][0, 0, 0, 1]) {id = 1 : i64, metadata = @out} : memref<?xi32, strided<[1], offset: 1024>>
      aiex.npu.sync {channel = 1 : i32, column = 0 : i32, column_num = 1 : i32, direction = 0 : i32, row = 0 : i32, row_num = 1 : i32}
      return
    }
  }
}
