// RULE: dma-lists
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %a = memref.alloc() : memref<64xf32, 1>
      %b = memref.alloc() : memref<64xbf16, 1>
      air.dma_memcpy_nd (%b[] [] [], %a[] [] []) : (memref<64xbf16, 1>, memref<64xf32, 1>) // ERROR
    }
  }
  return
}
