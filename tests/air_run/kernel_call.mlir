// Each PE of a 1x4 herd brings its 256-element slice into L1, calls the external
// kernel @twice_plus_one on it (a C function from a kernel library), and writes
// the slice back: out[i] = 2 * in[i] + 1.
module {
  func.func private @twice_plus_one(memref<256xf32, 2>) attributes {link_with = "kernels.o"}
  func.func @kernel_call(%arg0: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    air.launch (%x) in (%nx=%c1) args(%a=%arg0) : memref<1024xf32> {
      air.segment @seg args(%b=%a) : memref<1024xf32> {
        %c4 = arith.constant 4 : index
        %c1_s = arith.constant 1 : index
        air.herd @h tile (%tx, %ty) in (%sx=%c4, %sy=%c1_s) args(%buf=%b) : memref<1024xf32> {
          %c1_0 = arith.constant 1 : index
          %c256 = arith.constant 256 : index
          %off = arith.muli %tx, %c256 : index
          %l1 = memref.alloc() : memref<256xf32, 2>
          air.dma_memcpy_nd (%l1[] [] [], %buf[%off] [%c256] [%c1_0]) : (memref<256xf32, 2>, memref<1024xf32>)
          func.call @twice_plus_one(%l1) : (memref<256xf32, 2>) -> ()
          air.dma_memcpy_nd (%buf[%off] [%c256] [%c1_0], %l1[] [] []) : (memref<1024xf32>, memref<256xf32, 2>)
          memref.dealloc %l1 : memref<256xf32, 2>
        }
      }
    }
    return
  }
}
