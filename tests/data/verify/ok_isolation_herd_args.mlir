// RULE: none
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<64xf32, 1>
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%b=%l2) : memref<64xf32, 1> {
        %l1 = memref.alloc() : memref<64xf32, 2>
        air.dma_memcpy_nd (%l1[] [] [], %b[] [] []) : (memref<64xf32, 2>, memref<64xf32, 1>)
      }
    }
  }
  return
}
