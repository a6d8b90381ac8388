// RULE: rank
// gpu_symmetric_heap channels carry messages between ranks.
air.channel @m [2] {channel_type = "gpu_symmetric_heap"}
func.func @f(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = air.channel.put async @m[%c0] (%a[] [] []) : (memref<64xf32>) // ERROR
  air.channel.get @m[%c0] (%a[] [] []) : (memref<64xf32>) // ERROR
  return
}
