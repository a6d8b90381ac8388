// C[64x64] (f32) = A (bf16) * B (bf16) on a 2x2 herd: each tile DMAs its bf16
// row block of A and column block of B into L1, zero-fills an f32 accumulator,
// runs linalg.matmul with f32 accumulation and DMAs the tile back.
#map = affine_map<()[s0] -> (s0 * 32)>
func.func @bf16_matmul(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%la=%a, %lb=%b, %lc=%c) : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xf32> {
    air.segment @s args(%sa=%la, %sb=%lb, %sc=%lc) : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xf32> {
      %c2 = arith.constant 2 : index
      air.herd @h tile (%x, %y) in (%sx=%c2, %sy=%c2) args(%ha=%sa, %hb=%sb, %hc=%sc) : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xf32> {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c32 = arith.constant 32 : index
        %c64 = arith.constant 64 : index
        %zero = arith.constant 0.000000e+00 : f32
        %r = affine.apply #map()[%x]
        %q = affine.apply #map()[%y]
        %ta = memref.alloc() : memref<32x64xbf16, 2>
        %tb = memref.alloc() : memref<64x32xbf16, 2>
        %tc = memref.alloc() : memref<32x32xf32, 2>
        air.dma_memcpy_nd (%ta[] [] [], %ha[%r, %c0] [%c32, %c64] [%c64, %c1h]) : (memref<32x64xbf16, 2>, memref<64x64xbf16>)
        air.dma_memcpy_nd (%tb[] [] [], %hb[%c0, %q] [%c64, %c32] [%c64, %c1h]) : (memref<64x32xbf16, 2>, memref<64x64xbf16>)
        linalg.fill ins(%zero : f32) outs(%tc : memref<32x32xf32, 2>)
        linalg.matmul ins(%ta, %tb : memref<32x64xbf16, 2>, memref<64x32xbf16, 2>) outs(%tc : memref<32x32xf32, 2>)
        air.dma_memcpy_nd (%hc[%r, %q] [%c32, %c32] [%c64, %c1h], %tc[] [] []) : (memref<64x64xf32>, memref<32x32xf32, 2>)
        memref.dealloc %ta : memref<32x64xbf16, 2>
        memref.dealloc %tb : memref<64x32xbf16, 2>
        memref.dealloc %tc : memref<32x32xf32, 2>
      }
    }
  }
  return
}
