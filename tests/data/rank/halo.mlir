// Halo exchange through the symmetric heap with strided sides (columns of a
// row-major tile, so no side is one contiguous run): every rank fills column 0
// of its symmetric 4x4 tile with 10 * rank + i and meets the others at a
// collective; then it reads column 0 of the next rank's tile into column 3 of
// its output (src_rank: a strided get) and writes its column 0 into column 1 of
// the previous rank's tile (dst_rank: a strided put); after a second collective
// (every put landed) it copies tile columns 0..2 to the output. So rank r's
// output rows are [10r+i, 10n+i, 0, 10n+i] with n = (r + 1) mod ranks.
func.func @halo(%nr: index, %out: memref<4x4xf32>) {
  air.rank (%r) in (%n=%nr) args(%o=%out) : memref<4x4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %h = memref.alloc() {air.symmetric} : memref<4x4xf32>
    %c10 = arith.constant 10.0 : f32
    %ri = arith.index_cast %r : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %base = arith.mulf %rf, %c10 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %if = arith.sitofp %ii : i32 to f32
      %v = arith.addf %base, %if : f32
      memref.store %v, %h[%i, %c0] : memref<4x4xf32>
    }
    %s1 = arith.addi %r, %c1 : index
    %next = arith.remui %s1, %n : index
    %s2 = arith.addi %r, %n : index
    %s3 = arith.subi %s2, %c1 : index
    %prev = arith.remui %s3, %n : index
    %f1 = memref.alloc() {air.symmetric} : memref<1xf32>
    air.dma_memcpy_nd (%o[%c0, %c3] [%c4, %c1] [%c4, %c1], %h[%c0, %c0] [%c4, %c1] [%c4, %c1]) src_rank(%next) : (memref<4x4xf32>, memref<4x4xf32>)
    air.dma_memcpy_nd (%h[%c0, %c1] [%c4, %c1] [%c4, %c1], %h[%c0, %c0] [%c4, %c1] [%c4, %c1]) dst_rank(%prev) : (memref<4x4xf32>, memref<4x4xf32>)
    %f2 = memref.alloc() {air.symmetric} : memref<1xf32>
    air.dma_memcpy_nd (%o[%c0, %c0] [%c4, %c3] [%c4, %c1], %h[%c0, %c0] [%c4, %c3] [%c4, %c1]) : (memref<4x4xf32>, memref<4x4xf32>)
    memref.dealloc %f2 : memref<1xf32>
    memref.dealloc %f1 : memref<1xf32>
    memref.dealloc %h : memref<4x4xf32>
  }
  return
}
