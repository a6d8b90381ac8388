// RULE: none
// A 32x32 tile of a 64x64 buffer, and a 4-D wrap-around pattern longer than the
// memref's rank (legal: it describes a higher-dimensional view).
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %a = memref.alloc() : memref<64x64xf32, 1>
      %b = memref.alloc() : memref<32x32xf32, 1>
      air.dma_memcpy_nd (%b[] [] [], %a[%c0, %c32] [%c32, %c32] [%c64, %c1]) : (memref<32x32xf32, 1>, memref<64x64xf32, 1>)
      air.dma_memcpy_nd (%b[] [] [], %a[%c0, %c0, %c0, %c0] [%c4, %c8, %c4, %c8] [%c8, %c256, %c64, %c1]) : (memref<32x32xf32, 1>, memref<64x64xf32, 1>)
      air.dma_memcpy_nd (%b[%c1] [%c32, %c32] [%c32, %c1], %a[%c0, %c0] [%c32, %c32] [%c64, %c1]) {id = 3 : i32} : (memref<32x32xf32, 1>, memref<64x64xf32, 1>)
    }
  }
  return
}
