// RULE: dma-lists
// One stride per size.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %a = memref.alloc() : memref<64x64xf32, 1>
      %b = memref.alloc() : memref<32x32xf32, 1>
      air.dma_memcpy_nd (%b[] [] [], %a[%c0, %c0] [%c32, %c32] [%c1]) : (memref<32x32xf32, 1>, memref<64x64xf32, 1>) // ERROR
    }
  }
  return
}
