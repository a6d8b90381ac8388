// RULE: channel-type
// TARGET: npu2
air.channel @c [1] {channel_type = "gpu_symmetric_heap"} // ERROR
