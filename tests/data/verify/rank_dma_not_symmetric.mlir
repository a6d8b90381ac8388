// RULE: rank
// Peers address symmetric memrefs only; %x is this rank's copy of an argument.
func.func @f(%a: memref<64xf32>) {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) args(%x=%a) : memref<64xf32> {
    %l = memref.alloc() : memref<64xf32>
    air.dma_memcpy_nd (%l[] [] [], %x[] [] []) {src_rank = 1 : i64} : (memref<64xf32>, memref<64xf32>) // ERROR
    %p = memref.alloc() : memref<64xf32>
    air.dma_memcpy_nd (%p[] [] [], %l[] [] []) {dst_rank = 1 : i64} : (memref<64xf32>, memref<64xf32>) // ERROR
  }
  return
}
