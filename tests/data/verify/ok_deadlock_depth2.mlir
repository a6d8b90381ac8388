// RULE: none
// Depth 2 lets one transfer run ahead of the get: put then get in one scope is fine.
air.channel @C [] {depth = 2}
func.func @f() {
  air.launch () in () {
    air.segment @deadlock {
      %src = memref.alloc() : memref<64xf32, 1>
      %dst = memref.alloc() : memref<64xf32, 1>
      air.channel.put @C[] (%src[] [] []) : (memref<64xf32, 1>)
      air.channel.get @C[] (%dst[] [] []) : (memref<64xf32, 1>)
      air.segment_terminator
    }
  }
  return
}
