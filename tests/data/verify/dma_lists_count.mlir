// RULE: dma-lists
// 64 elements leave the source but the destination holds 128.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %a = memref.alloc() : memref<64x64xf32, 1>
      %b = memref.alloc() : memref<128xf32, 1>
      air.dma_memcpy_nd (%b[] [] [], %a[%c0] [%c64] [%c1]) : (memref<128xf32, 1>, memref<64x64xf32, 1>) // ERROR
    }
  }
  return
}
