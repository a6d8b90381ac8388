// RULE: none
// Dependency lists on data movement, wait_all and execute; affinity and
// concurrency lists on segments and herds.
air.channel @c [1]
func.func @f() {
  air.launch () in () {
    %a = air.token.alloc : !air.token
    %k = air.token.alloc : !air.token
    %s = air.segment @s async [affinity = [%a]] [concurrency = [%k]] {
      %c0 = arith.constant 0 : index
      %b = memref.alloc() : memref<64xf32, 1>
      %w = air.wait_all async
      %p = air.channel.put async [%w] @c[%c0] (%b[] [] []) : (memref<64xf32, 1>)
      %g = air.channel.get async [%w] @c[%c0] (%b[] [] []) : (memref<64xf32, 1>)
      %e = air.execute [%p, %g] {
        memref.dealloc %b : memref<64xf32, 1>
      }
    }
  }
  return
}
