// RULE: none
// The same copy without a peer rank needs no air.rank.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %l = memref.alloc() : memref<1024xf32, 2>
        %g = memref.alloc() : memref<1024xf32, 2>
        air.dma_memcpy_nd (%l[] [] [], %g[] [] []) : (memref<1024xf32, 2>, memref<1024xf32, 2>)
      }
    }
  }
  return
}
