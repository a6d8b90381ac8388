// c = a + b over 4096 f32: 16 workgroups (launch instances) of 256 work-items
// (herd PEs), each PE moving its element through L1 with DMAs. No channels:
// PE -> thread.
func.func @vadd(%a: memref<4096xf32>, %b: memref<4096xf32>, %c: memref<4096xf32>) {
  %c16 = arith.constant 16 : index
  air.launch (%bx) in (%nbx=%c16) args(%A=%a, %B=%b, %C=%c) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
    air.segment @seg args(%sbx=%bx, %SA=%A, %SB=%B, %SC=%C) : index, memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
      %c256 = arith.constant 256 : index
      %c1 = arith.constant 1 : index
      air.herd @h tile (%tx, %ty) in (%sx=%c256, %sy=%c1) args(%hb=%sbx, %HA=%SA, %HB=%SB, %HC=%SC) : index, memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
        %c0h = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c256h = arith.constant 256 : index
        %base = arith.muli %hb, %c256h : index
        %i = arith.addi %base, %tx : index
        %la = memref.alloc() : memref<1xf32, 2>
        %lb = memref.alloc() : memref<1xf32, 2>
        air.dma_memcpy_nd (%la[] [] [], %HA[%i] [%c1h] [%c1h]) : (memref<1xf32, 2>, memref<4096xf32>)
        air.dma_memcpy_nd (%lb[] [] [], %HB[%i] [%c1h] [%c1h]) : (memref<1xf32, 2>, memref<4096xf32>)
        %x = memref.load %la[%c0h] : memref<1xf32, 2>
        %y = memref.load %lb[%c0h] : memref<1xf32, 2>
        %s = arith.addf %x, %y : f32
        memref.store %s, %la[%c0h] : memref<1xf32, 2>
        air.dma_memcpy_nd (%HC[%i] [%c1h] [%c1h], %la[] [] []) : (memref<4096xf32>, memref<1xf32, 2>)
        memref.dealloc %la : memref<1xf32, 2>
        memref.dealloc %lb : memref<1xf32, 2>
      }
    }
  }
  return
}
