// RULE: channel-type
// TARGET: mi300x
// NPU stream channels do not exist on a GPU.
air.channel @c [1] {channel_type = "npu_dma_stream"} // ERROR
