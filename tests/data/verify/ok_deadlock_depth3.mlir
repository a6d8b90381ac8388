// RULE: none
// Depth 3 lets two transfers run ahead of the gets.
air.channel @C [] {depth = 3}
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %a = memref.alloc() : memref<64xf32, 1>
      %b = memref.alloc() : memref<64xf32, 1>
      air.channel.put @C[] (%a[] [] []) : (memref<64xf32, 1>)
      air.channel.put @C[] (%b[] [] []) : (memref<64xf32, 1>)
      air.channel.get @C[] (%a[] [] []) : (memref<64xf32, 1>)
      air.channel.get @C[] (%b[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
