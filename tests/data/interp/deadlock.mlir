// Producer and consumer agree on nothing: the producer puts %n times, the
// consumer gets 4 times. The trip count is dynamic, so the verifier cannot see
// it; at run time %n = 3 starves the last get and %n = 6 fills the channel.
air.channel @ch [1]
func.func @starve(%n: index, %out: memref<4xi32>) {
  %c1 = arith.constant 1 : index
  %t = air.launch async (%l) in (%nl=%c1) args(%nn=%n, %o=%out) : index, memref<4xi32> {
    air.segment @s args(%sn=%nn, %so=%o) : index, memref<4xi32> {
      %c1s = arith.constant 1 : index
      %p = air.herd @prod async tile (%x) in (%sx=%c1s) args(%hn=%sn) : index {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %buf = memref.alloc() : memref<1xi32, 2>
        scf.for %i = %c0 to %hn step %c1h {
          %v = arith.index_cast %i : index to i32
          memref.store %v, %buf[%c0] : memref<1xi32, 2>
          air.channel.put @ch[%c0] (%buf[] [] []) : (memref<1xi32, 2>)
        }
        memref.dealloc %buf : memref<1xi32, 2>
      }
      %g = air.herd @cons async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<4xi32> {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %buf = memref.alloc() : memref<1xi32, 2>
        scf.for %i = %c0 to %c4 step %c1h {
          air.channel.get @ch[%c0] (%buf[] [] []) : (memref<1xi32, 2>)
          %v = memref.load %buf[%c0] : memref<1xi32, 2>
          // element writes to L3 go through data movement (spec 1)
          air.dma_memcpy_nd (%ho[%i] [%c1h] [%c1h], %buf[%c0] [%c1h] [%c1h]) : (memref<4xi32>, memref<1xi32, 2>)
        }
        memref.dealloc %buf : memref<1xi32, 2>
      }
    }
  }
  air.wait_all [%t]
  return
}
