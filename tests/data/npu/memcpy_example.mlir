// NPU-DMA.md §12's worked example: one MM2S transfer from column 1 and its wait.
module {
  aie.device(npu1) {
    %tile_1_0 = aie.tile(1, 0)
    aie.shim_dma_allocation @in(MM2S, 0, 1)
    aiex.runtime_sequence(%arg0: memref<64x64xi32>) {
      aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 32][1, 1, 64, 32][0, 0, 64, 1]) {id = 1 : i64, metadata = @in, issue_token = true} : memref<64x64xi32>
      aiex.npu.dma_wait {symbol = @in}
    }
  }
}
