// The same loop body twice: @single carries one token chain (D = 1), @double
// two (compute and prefetch, D = 2), so @double holds twice the herd tiles and
// DMA of one iteration. Each iteration: a 1x2 herd and one L3->L2 dma.
func.func @depth(%arg0: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%in=%arg0) : memref<256xf32> {
    air.segment @single args(%src=%in) : memref<256xf32> {
      %c0 = arith.constant 0 : index
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %t0, %buf = air.execute -> (memref<256xf32, 1>) {
        %alloc = memref.alloc() : memref<256xf32, 1>
        air.execute_terminator %alloc : memref<256xf32, 1>
      }
      %r = scf.for %k = %c0 to %c4 step %c1s iter_args(%t = %t0) -> (!air.token) {
        %d = air.dma_memcpy_nd async [%t] (%buf[] [] [], %src[] [] []) : (memref<256xf32, 1>, memref<256xf32>)
        %h = air.herd async [%d] tile (%x, %y) in (%sx=%c1s, %sy=%c2) {
        }
        scf.yield %h : !air.token
      }
      %e = air.execute [%r] {
        memref.dealloc %buf : memref<256xf32, 1>
      }
    }
    air.segment @double args(%src=%in) : memref<256xf32> {
      %c0 = arith.constant 0 : index
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %t0, %buf = air.execute -> (memref<256xf32, 1>) {
        %alloc = memref.alloc() : memref<256xf32, 1>
        air.execute_terminator %alloc : memref<256xf32, 1>
      }
      %r:2 = scf.for %k = %c0 to %c4 step %c1s iter_args(%tc = %t0, %tp = %t0) -> (!air.token, !air.token) {
        %d = air.dma_memcpy_nd async [%tp] (%buf[] [] [], %src[] [] []) : (memref<256xf32, 1>, memref<256xf32>)
        %h = air.herd async [%d, %tc] tile (%x, %y) in (%sx=%c1s, %sy=%c2) {
        }
        scf.yield %h, %d : !air.token, !air.token
      }
      %e = air.execute [%r#0, %r#1] {
        memref.dealloc %buf : memref<256xf32, 1>
      }
    }
  }
  return
}
