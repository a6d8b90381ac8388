// Waiting on a task that issues no completion token would hang the stream.
aie.device(npu1_1col) {
  %t = aie.tile(0, 0)
  aie.shim_dma_allocation @s(%t, MM2S, 0)
  aie.runtime_sequence(%a: memref<8xi32>) {
    %k = aiex.dma_configure_task_for @s {
      aie.dma_bd(%a : memref<8xi32>, 0, 8) {bd_id = 0 : i32}
      aie.end
    }
    aiex.dma_start_task(%k)
    aiex.dma_await_task(%k)
  }
}
