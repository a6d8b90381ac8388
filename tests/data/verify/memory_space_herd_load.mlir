// RULE: memory-space
// Element loads and stores in a herd touch the PE's L1 only, whatever the target:
// L2 and L3 data reaches a PE through data movement (spec 1). The linalg op on L2
// and the DMA are data movement and are fine without an NPU target.
func.func @f(%arg0: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  air.launch (%a) in (%na=%c1) args(%l3=%arg0) : memref<64xf32> {
    air.segment @s args(%m=%l3) : memref<64xf32> {
      %c1_0 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<64xf32, 1>
      air.herd @h tile (%x, %y) in (%sx=%c1_0, %sy=%c1_0) args(%b=%l2, %g=%m) : memref<64xf32, 1>, memref<64xf32> {
        %c0 = arith.constant 0 : index
        %cst = arith.constant 1.0 : f32
        %l1 = memref.alloc() : memref<64xf32, 2>
        %v = memref.load %b[%c0] : memref<64xf32, 1> // ERROR
        memref.store %v, %g[%c0] : memref<64xf32> // ERROR
        %w = affine.load %b[%x] : memref<64xf32, 1> // ERROR
        affine.store %w, %g[%y + 1] : memref<64xf32> // ERROR
        %u = memref.load %l1[%c0] : memref<64xf32, 2>
        memref.store %u, %l1[%c0] : memref<64xf32, 2>
        linalg.fill ins(%cst : f32) outs(%b : memref<64xf32, 1>)
        air.dma_memcpy_nd (%l1[] [] [], %g[] [] []) : (memref<64xf32, 2>, memref<64xf32>)
      }
    }
  }
  return
}
