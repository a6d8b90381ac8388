// RULE: isolation
// A launch body cannot read the function's argument directly.
func.func @f(%a: memref<64xf32>) {
  air.launch () in () {
    air.segment @s {
      %b = memref.alloc() : memref<64xf32, 1>
      air.dma_memcpy_nd (%b[] [] [], %a[] [] []) : (memref<64xf32, 1>, memref<64xf32>) // ERROR
    }
  }
  return
}
