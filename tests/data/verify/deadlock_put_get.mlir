// RULE: deadlock
// The spec's minimal deadlock: depth 1 is a rendezvous, so the put waits for
// a get that sequential control flow only reaches after the put.
air.channel @C [] {depth = 1}
func.func @f() {
  air.launch () in () {
    air.segment @deadlock {
      %src = memref.alloc() : memref<64xf32, 1>
      %dst = memref.alloc() : memref<64xf32, 1>
      air.channel.put @C[] (%src[] [] []) : (memref<64xf32, 1>) // ERROR
      air.channel.get @C[] (%dst[] [] []) : (memref<64xf32, 1>)
      air.segment_terminator
    }
  }
  return
}
