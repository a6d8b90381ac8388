// RULE: rank
// One peer per side: the attribute and the operand form together are ambiguous.
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) {
    %s = memref.alloc() {air.symmetric} : memref<64xf32>
    %l = memref.alloc() : memref<64xf32>
    air.dma_memcpy_nd (%l[] [] [], %s[] [] []) src_rank(%r) {src_rank = 0 : i64} : (memref<64xf32>, memref<64xf32>) // ERROR
  }
  return
}
