// out = transpose(in) for a 64x64 f32 matrix on a 2x2 herd: each tile brings its
// 32x32 block into L1 with air.dma_memcpy_nd, transposes it with affine.load and
// affine.store (subscripts are affine expressions over SSA values and symbols),
// and writes it to the mirrored block. @reshape views a matrix through
// memref.collapse_shape, memref.expand_shape and memref.cast and evaluates
// affine.min / affine.max.
#map = affine_map<()[s0] -> (s0 * 32)>
#bounds = affine_map<(d0)[s0] -> (d0 + 4, s0)>
module {
  func.func @transpose(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    air.launch (%l) in (%ln=%c1) args(%a=%arg0, %b=%arg1) : memref<64x64xf32>, memref<64x64xf32> {
      air.segment @tseg args(%sa=%a, %sb=%b) : memref<64x64xf32>, memref<64x64xf32> {
        %c2 = arith.constant 2 : index
        air.herd @th tile (%x, %y) in (%sx=%c2, %sy=%c2) args(%ha=%sa, %hb=%sb) : memref<64x64xf32>, memref<64x64xf32> {
          %c0 = arith.constant 0 : index
          %c1_0 = arith.constant 1 : index
          %c32 = arith.constant 32 : index
          %c64 = arith.constant 64 : index
          %r = affine.apply #map()[%x]
          %c = affine.apply #map()[%y]
          %t = memref.alloc() : memref<32x32xf32, 2>
          %u = memref.alloc() : memref<32x32xf32, 2>
          air.dma_memcpy_nd (%t[] [] [], %ha[%r, %c] [%c32, %c32] [%c64, %c1_0]) : (memref<32x32xf32, 2>, memref<64x64xf32>)
          affine.for %i = 0 to 32 {
            affine.for %j = 0 to 32 {
              %v = affine.load %t[%i, %j] : memref<32x32xf32, 2>
              affine.store %v, %u[%j, %i floordiv 2 * 2 + %i mod 2 + symbol(%c0)] : memref<32x32xf32, 2>
            }
          }
          air.dma_memcpy_nd (%hb[%c, %r] [%c32, %c32] [%c64, %c1_0], %u[] [] []) : (memref<64x64xf32>, memref<32x32xf32, 2>)
          memref.dealloc %t : memref<32x32xf32, 2>
          memref.dealloc %u : memref<32x32xf32, 2>
        }
      }
    }
    return
  }
  func.func @reshape(%arg0: memref<4x8xf32>, %arg1: memref<4xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %0 = memref.collapse_shape %arg0 [[0, 1]] : memref<4x8xf32> into memref<32xf32>
    %1 = memref.expand_shape %0 [[0, 1, 2]] output_shape [%c2, 2, 8] : memref<32xf32> into memref<?x2x8xf32>
    %2 = memref.cast %1 : memref<?x2x8xf32> to memref<2x2x8xf32>
    %3 = affine.load %0[%c1 * 8 + %c1] : memref<32xf32>
    affine.store %3, %arg0[0, 0] : memref<4x8xf32>
    %4 = affine.load %2[%c1, 0, %c3] : memref<2x2x8xf32>
    affine.store %4, %2[0, 0, 1] : memref<2x2x8xf32>
    %5 = affine.min #bounds(%c3)[%c5]
    %6 = affine.max #bounds(%c3)[%c5]
    %7 = affine.min affine_map<(d0, d1) -> (d0 * 4, d1 - 1, 9)>(%c3, %c5)
    %8 = arith.index_cast %5 : index to i32
    %9 = arith.index_cast %6 : index to i32
    %10 = arith.index_cast %7 : index to i32
    memref.store %8, %arg1[%c0] : memref<4xi32>
    memref.store %9, %arg1[%c1] : memref<4xi32>
    memref.store %10, %arg1[%c2] : memref<4xi32>
    return
  }
}
