// c[4096] = a[4096] + b[4096], f32, on a 4x1 herd using DMA.
//
// Tile x owns elements [1024*x, 1024*x + 1024) and walks them 256 at a time:
// two DMAs bring a and b from L3 into L1, an air.execute adds them element by
// element, and a third DMA writes the sum back. The loop's token orders each
// step after the previous write-back, so the L1 buffers are reused safely.
#map = affine_map<()[s0] -> (s0 * 1024)>
module {
  func.func @vector_add(%arg0: memref<4096xf32>, %arg1: memref<4096xf32>, %arg2: memref<4096xf32>) {
    %0 = air.launch async () in () args(%a=%arg0, %b=%arg1, %c=%arg2) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
      %1 = air.segment @vadd_seg async args(%sa=%a, %sb=%b, %sc=%c) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
        %c1 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %2 = air.herd @vadd_herd async tile (%tx, %ty) in (%sx=%c4, %sy=%c1) args(%ha=%sa, %hb=%sb, %hc=%sc) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
          %c0 = arith.constant 0 : index
          %c1_0 = arith.constant 1 : index
          %c256 = arith.constant 256 : index
          %c1024 = arith.constant 1024 : index
          %base = affine.apply #map()[%tx]
          %t0, %la = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %t1, %lb = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %t2, %lc = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %ready = air.wait_all async [%t0, %t1, %t2]
          %done = scf.for %i = %c0 to %c1024 step %c256 iter_args(%t = %ready) -> (!air.token) {
            %off = arith.addi %base, %i : index
            %da = air.dma_memcpy_nd async [%t] (%la[] [] [], %ha[%off] [%c256] [%c1_0]) : (memref<256xf32, 2>, memref<4096xf32>)
            %db = air.dma_memcpy_nd async [%t] (%lb[] [] [], %hb[%off] [%c256] [%c1_0]) : (memref<256xf32, 2>, memref<4096xf32>)
            %add = air.execute [%da, %db] {
              scf.for %j = %c0 to %c256 step %c1_0 {
                %x = memref.load %la[%j] : memref<256xf32, 2>
                %y = memref.load %lb[%j] : memref<256xf32, 2>
                %sum = arith.addf %x, %y : f32
                memref.store %sum, %lc[%j] : memref<256xf32, 2>
              }
            }
            %dc = air.dma_memcpy_nd async [%add] (%hc[%off] [%c256] [%c1_0], %lc[] [] []) : (memref<4096xf32>, memref<256xf32, 2>)
            scf.yield %dc : !air.token
          }
          %free = air.execute [%done] {
            memref.dealloc %la : memref<256xf32, 2>
            memref.dealloc %lb : memref<256xf32, 2>
            memref.dealloc %lc : memref<256xf32, 2>
          }
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
