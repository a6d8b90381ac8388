// Symmetric-heap exchange: every rank writes 100 * rank + i into its symmetric
// buffer's slot for each peer (a put into the peer's copy, dst_rank), meets the
// others at a collective, and copies its own buffer (what its peers wrote) out
// to %out. Inside a herd too: rank 0's copy of the first row is read into L1.
func.func @exchange(%nr: index, %out: memref<4x8xf32>, %first: memref<8xf32>) {
  air.rank (%r) in (%n=%nr) args(%o=%out, %f=%first) : memref<4x8xf32>, memref<8xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %h = memref.alloc() {air.symmetric} : memref<4x8xf32>
    %row = memref.alloc() : memref<8xf32>
    %c100 = arith.constant 100.0 : f32
    %ri = arith.index_cast %r : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %base = arith.mulf %rf, %c100 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %if = arith.sitofp %ii : i32 to f32
      %v = arith.addf %base, %if : f32
      memref.store %v, %row[%i] : memref<8xf32>
    }
    scf.for %p = %c0 to %n step %c1 {
      // row %r of peer %p's buffer gets this rank's row
      air.dma_memcpy_nd (%h[%r, %c0] [%c1, %c8] [%c8, %c1], %row[] [] []) dst_rank(%p) : (memref<4x8xf32>, memref<8xf32>)
    }
    %fence = memref.alloc() {air.symmetric} : memref<1xf32>
    air.dma_memcpy_nd (%o[] [] [], %h[] [] []) : (memref<4x8xf32>, memref<4x8xf32>)
    air.launch () in () args(%hh=%h, %ff=%f) : memref<4x8xf32>, memref<8xf32> {
      air.segment @s args(%h2=%hh, %f2=%ff) : memref<4x8xf32>, memref<8xf32> {
        %one = arith.constant 1 : index
        air.herd @w tile (%tx, %ty) in (%sx=%one, %sy=%one) args(%h3=%h2, %f3=%f2) : memref<4x8xf32>, memref<8xf32> {
          %z = arith.constant 0 : index
          %k1 = arith.constant 1 : index
          %k8 = arith.constant 8 : index
          %l1 = memref.alloc() : memref<8xf32, 2>
          air.dma_memcpy_nd (%l1[] [] [], %h3[%z, %z] [%k1, %k8] [%k8, %k1]) {src_rank = 0 : i64} : (memref<8xf32, 2>, memref<4x8xf32>)
          air.dma_memcpy_nd (%f3[] [] [], %l1[] [] []) : (memref<8xf32>, memref<8xf32, 2>)
          memref.dealloc %l1 : memref<8xf32, 2>
        }
      }
    }
    memref.dealloc %fence : memref<1xf32>
    memref.dealloc %h : memref<4x8xf32>
  }
  return
}
