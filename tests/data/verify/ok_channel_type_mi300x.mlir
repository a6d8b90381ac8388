// RULE: none
// TARGET: mi300x
// Declaring a GPU channel type is fine on mi300x.
air.channel @e [1] {channel_type = "gpu_symmetric_heap"}
