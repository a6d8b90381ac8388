// Thousands of async puts and gets on one channel index, none ordered by a
// token: each takes its turn from its issue order, the producer's loop and the
// consumer's loop finish issuing long before the transfers are done, and the
// i-th get receives the i-th put.
air.channel @c [1]
func.func @backlog(%n: index, %out: memref<4096xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%ln=%n, %o=%out) : index, memref<4096xi32> {
    air.segment @s args(%sn=%ln, %so=%o) : index, memref<4096xi32> {
      %c1s = arith.constant 1 : index
      %p = air.herd @prod async tile (%x) in (%sx=%c1s) args(%hn=%sn) : index {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %src = memref.alloc() : memref<4096xi32, 2>
        scf.for %i = %c0 to %hn step %c1h {
          %v = arith.index_cast %i : index to i32
          memref.store %v, %src[%i] : memref<4096xi32, 2>
        }
        %p0 = air.wait_all async
        %all = scf.for %i = %c0 to %hn step %c1h iter_args(%t = %p0) -> (!air.token) {
          %q = air.channel.put async @c[%c0] (%src[%i] [%c1h] [%c1h]) : (memref<4096xi32, 2>)
          %j = air.wait_all async [%t, %q]
          scf.yield %j : !air.token
        }
        air.wait_all [%all]
        memref.dealloc %src : memref<4096xi32, 2>
      }
      %g = air.herd @cons async tile (%x) in (%sx=%c1s) args(%hn=%sn, %ho=%so) : index, memref<4096xi32> {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %start = air.wait_all async
        %all = scf.for %i = %c0 to %hn step %c1h iter_args(%t = %start) -> (!air.token) {
          %q = air.channel.get async @c[%c0] (%ho[%i] [%c1h] [%c1h]) : (memref<4096xi32>)
          %j = air.wait_all async [%t, %q]
          scf.yield %j : !air.token
        }
        air.wait_all [%all]
      }
      air.wait_all [%p, %g]
    }
  }
  return
}
