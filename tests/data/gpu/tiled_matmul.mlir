// C[128x128] = A[128x128] * B[128x128], f32, GPU style (the spec's 4k_4k_mul
// example, smaller): a 2x2 grid of 64x64 output tiles; per tile (segment) L2
// tiles of A (64x8), B (8x64) and C (64x64) live in LDS; each k step the segment
// copies A's and B's tiles in (DMA distributed over the workgroup), then a 16x16
// herd (one work-item per PE) updates its 4x4 block of C with L1 accumulators,
// synchronised by the phases (barriers) around the herd; C's tile goes back at
// the end. Each PE copies its rows of A, columns of B and block of C into L1
// (DMA L2 -> L1), computes there and copies its block back. No channels: PE ->
// thread.
#map = affine_map<()[s0] -> (s0 * 64)>
module {
  func.func @tiled(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
    %c2 = arith.constant 2 : index
    air.launch (%bx, %by) in (%nbx=%c2, %nby=%c2) args(%A=%a, %B=%b, %C=%c) : memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32> {
      air.segment @tile args(%sx=%bx, %sy=%by, %SA=%A, %SB=%B, %SC=%C) : index, index, memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %c16 = arith.constant 16 : index
        %c64 = arith.constant 64 : index
        %c128 = arith.constant 128 : index
        %zero = arith.constant 0.000000e+00 : f32
        %row = affine.apply #map()[%sx]
        %col = affine.apply #map()[%sy]
        %As = memref.alloc() : memref<64x8xf32, 1>
        %Bs = memref.alloc() : memref<8x64xf32, 1>
        %Cs = memref.alloc() : memref<64x64xf32, 1>
        linalg.fill ins(%zero : f32) outs(%Cs : memref<64x64xf32, 1>)
        scf.for %k = %c0 to %c128 step %c8 {
          air.dma_memcpy_nd (%As[] [] [], %SA[%row, %k] [%c64, %c8] [%c128, %c1]) : (memref<64x8xf32, 1>, memref<128x128xf32>)
          air.dma_memcpy_nd (%Bs[] [] [], %SB[%k, %col] [%c8, %c64] [%c128, %c1]) : (memref<8x64xf32, 1>, memref<128x128xf32>)
          air.herd @mm tile (%tx, %ty) in (%ntx=%c16, %nty=%c16) args(%HA=%As, %HB=%Bs, %HC=%Cs) : memref<64x8xf32, 1>, memref<8x64xf32, 1>, memref<64x64xf32, 1> {
            %h0 = arith.constant 0 : index
            %h1 = arith.constant 1 : index
            %h4 = arith.constant 4 : index
            %h8 = arith.constant 8 : index
            %h64 = arith.constant 64 : index
            %la = memref.alloc() : memref<4x8xf32, 2>
            %lb = memref.alloc() : memref<8x4xf32, 2>
            %acc = memref.alloc() : memref<4x4xf32, 2>
            %r0 = arith.muli %ty, %h4 : index
            %q0 = arith.muli %tx, %h4 : index
            // this PE's rows of A, columns of B and block of C, L2 -> L1
            air.dma_memcpy_nd (%la[] [] [], %HA[%r0, %h0] [%h4, %h8] [%h8, %h1]) : (memref<4x8xf32, 2>, memref<64x8xf32, 1>)
            air.dma_memcpy_nd (%lb[] [] [], %HB[%h0, %q0] [%h8, %h4] [%h64, %h1]) : (memref<8x4xf32, 2>, memref<8x64xf32, 1>)
            air.dma_memcpy_nd (%acc[] [] [], %HC[%r0, %q0] [%h4, %h4] [%h64, %h1]) : (memref<4x4xf32, 2>, memref<64x64xf32, 1>)
            scf.for %kk = %h0 to %h8 step %h1 {
              scf.for %i = %h0 to %h4 step %h1 {
                scf.for %j = %h0 to %h4 step %h1 {
                  %x = memref.load %la[%i, %kk] : memref<4x8xf32, 2>
                  %y = memref.load %lb[%kk, %j] : memref<8x4xf32, 2>
                  %p = arith.mulf %x, %y : f32
                  %o = memref.load %acc[%i, %j] : memref<4x4xf32, 2>
                  %s = arith.addf %o, %p : f32
                  memref.store %s, %acc[%i, %j] : memref<4x4xf32, 2>
                }
              }
            }
            air.dma_memcpy_nd (%HC[%r0, %q0] [%h4, %h4] [%h64, %h1], %acc[] [] []) : (memref<64x64xf32, 1>, memref<4x4xf32, 2>)
            memref.dealloc %la : memref<4x8xf32, 2>
            memref.dealloc %lb : memref<8x4xf32, 2>
            memref.dealloc %acc : memref<4x4xf32, 2>
          }
        }
        air.dma_memcpy_nd (%SC[%row, %col] [%c64, %c64] [%c128, %c1], %Cs[] [] []) : (memref<128x128xf32>, memref<64x64xf32, 1>)
        memref.dealloc %As : memref<64x8xf32, 1>
        memref.dealloc %Bs : memref<8x64xf32, 1>
        memref.dealloc %Cs : memref<64x64xf32, 1>
      }
    }
    return
  }
}
