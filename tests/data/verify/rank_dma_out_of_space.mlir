// RULE: rank
// Constant peers must be inside the rank space [0, 2).
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %s = memref.alloc() {air.symmetric} : memref<64xf32>
    %l = memref.alloc() : memref<64xf32>
    air.dma_memcpy_nd (%l[] [] [], %s[] [] []) {src_rank = 2 : i64} : (memref<64xf32>, memref<64xf32>) // ERROR
    %c5 = arith.constant 5 : index
    air.dma_memcpy_nd (%s[] [] [], %l[] [] []) dst_rank(%c5) : (memref<64xf32>, memref<64xf32>) // ERROR
    air.dma_memcpy_nd (%l[] [] [], %s[] [] []) {src_rank = -1 : i64} : (memref<64xf32>, memref<64xf32>) // ERROR
  }
  return
}
