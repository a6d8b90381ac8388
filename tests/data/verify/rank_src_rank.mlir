// RULE: rank
// Cross-rank DMA needs an enclosing air.rank: a herd outside any rank has no peers.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %l = memref.alloc() : memref<1024xf32, 2>
        %g = memref.alloc() : memref<1024xf32, 2>
        air.dma_memcpy_nd (%l[] [] [], %g[] [] []) {src_rank = 0 : i64} : (memref<1024xf32, 2>, memref<1024xf32, 2>) // ERROR
      }
    }
  }
  return
}
