// RULE: rank
// src_rank indexes a rank space: it needs an enclosing air.rank.
func.func @f(%a: memref<64xf32>) {
  %s = memref.alloc() : memref<64xf32>
  air.dma_memcpy_nd (%a[] [] [], %s[] [] []) {src_rank = 0 : i64} : (memref<64xf32>, memref<64xf32>) // ERROR
  return
}
