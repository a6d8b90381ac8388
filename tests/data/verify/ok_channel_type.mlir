// RULE: none
air.channel @a [1] {channel_type = "npu_dma_stream"}
air.channel @b [1] {channel_type = "npu_dma_packet", depth = 4}
air.channel @c [1] {channel_type = "npu_cascade"}
air.channel @d [1] {channel_type = "npu_mmio"}
air.channel @e [1] {channel_type = "gpu_symmetric_heap"}
