// RULE: none
// Symmetric-heap exchange: each rank publishes its data, the ranks meet at a
// channel barrier, then each reads its neighbour's copy into L1 inside a herd
// (through launch/segment/herd args), and frees the heap together.
air.channel @bar [2]
func.func @f(%a: memref<64xf32>) {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) args(%x=%a) : memref<64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %h = memref.alloc() {air.symmetric} : memref<64xf32>
    scf.for %i = %c0 to %c3 step %c1 {
      %tmp = memref.alloc() {air.symmetric} : memref<16xf32>
      memref.dealloc %tmp : memref<16xf32>
    }
    %t0, %e = air.execute -> (memref<8xf32>) {
      %m = memref.alloc() {air.symmetric} : memref<8xf32>
      air.execute_terminator %m : memref<8xf32>
    }
    air.dma_memcpy_nd (%h[] [] [], %x[] [] []) : (memref<64xf32>, memref<64xf32>)
    %s = arith.addi %r, %c1 : index
    %peer = arith.remui %s, %n : index
    %p = air.channel.put async @bar[%peer] (%x[] [] []) : (memref<64xf32>)
    air.channel.get @bar[%r] (%x[] [] []) : (memref<64xf32>)
    air.wait_all [%p]
    %c8 = arith.constant 8 : index
    air.dma_memcpy_nd (%e[] [] [], %h[%c0] [%c8] [%c1]) {src_rank = 1 : i64} : (memref<8xf32>, memref<64xf32>)
    air.launch (%i) in (%k=%c1) args(%hh=%h, %pp=%peer) : memref<64xf32>, index {
      air.segment @s args(%h2=%hh, %p2=%pp) : memref<64xf32>, index {
        %c1_0 = arith.constant 1 : index
        air.herd @w tile (%tx, %ty) in (%sx=%c1_0, %sy=%c1_0) args(%h3=%h2, %p3=%p2) : memref<64xf32>, index {
          %l1 = memref.alloc() : memref<64xf32, 2>
          air.dma_memcpy_nd (%l1[] [] [], %h3[] [] []) src_rank(%p3) : (memref<64xf32, 2>, memref<64xf32>)
          air.dma_memcpy_nd (%h3[] [] [], %l1[] [] []) dst_rank(%p3) : (memref<64xf32>, memref<64xf32, 2>)
          memref.dealloc %l1 : memref<64xf32, 2>
        }
      }
    }
    memref.dealloc %h : memref<64xf32>
  }
  return
}
