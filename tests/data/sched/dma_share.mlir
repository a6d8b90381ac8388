// DMA channel sharing. Each herd has one PE and reads 256-float pieces of an
// L3 buffer into L1; a core tile has 2 incoming (S2MM) channels.
//   @phases    3 reads in two loop phases, every read blocking: never two at
//              once, so they share 1 channel.
//   @tokens    3 async reads chained by their tokens: 1 channel.
//   @branch    reads in the two branches of an scf.if share; a third read
//              runs beside the if: 2 channels.
//   @together  3 async reads with nothing between them: 3 channels, more than
//              the tile has, so the check names the herd and the three reads.
//   @steady / @pipelined  gets on @ca then @cb, ordered inside each iteration;
//              with one token chain (D = 1) iterations run in turn and the two
//              channels share 1; with two chains (D = 2) iteration i+1's get on
//              @ca may overlap iteration i's on @cb: 2.
//   @mt_phases / @mt_flat  (x_size = 1: one mem tile, 6 S2MM) 8 L3 -> L2 copies:
//              in two phases of 4 they need 4 mem-tile channels; all 8 at once
//              need 8, and the check names the segment.
module {
  air.channel @ca [1, 1]
  air.channel @cb [1, 1]
  air.channel @da [1, 1]
  air.channel @db [1, 1]
  func.func @share(%arg0: memref<1024xf32>, %arg1: memref<1024xf32>) {
    %0 = air.launch async () in () args(%src=%arg0) : memref<1024xf32> {
      %1 = air.segment @seg async args(%s=%src) : memref<1024xf32> {
        %c1 = arith.constant 1 : index
        %h1 = air.herd @phases async tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%hs=%s) : memref<1024xf32> {
          %c0 = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c2 = arith.constant 2 : index
          %c256 = arith.constant 256 : index
          %a = memref.alloc() : memref<256xf32, 2>
          %b = memref.alloc() : memref<256xf32, 2>
          %c = memref.alloc() : memref<256xf32, 2>
          scf.for %i = %c0 to %c2 step %c1h {
            air.dma_memcpy_nd (%a[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
            air.dma_memcpy_nd (%b[] [] [], %hs[%c256] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          }
          scf.for %i = %c0 to %c2 step %c1h {
            air.dma_memcpy_nd (%c[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          }
          memref.dealloc %a : memref<256xf32, 2>
          memref.dealloc %b : memref<256xf32, 2>
          memref.dealloc %c : memref<256xf32, 2>
        }
        %h2 = air.herd @tokens async [%h1] tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%hs=%s) : memref<1024xf32> {
          %c0 = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c256 = arith.constant 256 : index
          %a = memref.alloc() : memref<256xf32, 2>
          %b = memref.alloc() : memref<256xf32, 2>
          %c = memref.alloc() : memref<256xf32, 2>
          %da = air.dma_memcpy_nd async (%a[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          %db = air.dma_memcpy_nd async [%da] (%b[] [] [], %hs[%c256] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          %dc = air.dma_memcpy_nd async [%db] (%c[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          air.wait_all [%dc]
          memref.dealloc %a : memref<256xf32, 2>
          memref.dealloc %b : memref<256xf32, 2>
          memref.dealloc %c : memref<256xf32, 2>
        }
        %h3 = air.herd @branch async [%h2] tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%hs=%s) : memref<1024xf32> {
          %c0 = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c256 = arith.constant 256 : index
          %a = memref.alloc() : memref<256xf32, 2>
          %b = memref.alloc() : memref<256xf32, 2>
          %c = memref.alloc() : memref<256xf32, 2>
          %dc = air.dma_memcpy_nd async (%c[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          %first = arith.cmpi eq, %x, %c0 : index
          scf.if %first {
            air.dma_memcpy_nd (%a[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          } else {
            air.dma_memcpy_nd (%b[] [] [], %hs[%c256] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          }
          air.wait_all [%dc]
          memref.dealloc %a : memref<256xf32, 2>
          memref.dealloc %b : memref<256xf32, 2>
          memref.dealloc %c : memref<256xf32, 2>
        }
        %h4 = air.herd @together async [%h3] tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%hs=%s) : memref<1024xf32> {
          %c0 = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c256 = arith.constant 256 : index
          %a = memref.alloc() : memref<256xf32, 2>
          %b = memref.alloc() : memref<256xf32, 2>
          %c = memref.alloc() : memref<256xf32, 2>
          %da = air.dma_memcpy_nd async (%a[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          %db = air.dma_memcpy_nd async (%b[] [] [], %hs[%c256] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          %dc = air.dma_memcpy_nd async (%c[] [] [], %hs[%c0] [%c256] [%c1h]) : (memref<256xf32, 2>, memref<1024xf32>)
          air.wait_all [%da, %db, %dc]
          memref.dealloc %a : memref<256xf32, 2>
          memref.dealloc %b : memref<256xf32, 2>
          memref.dealloc %c : memref<256xf32, 2>
        }
        air.wait_all [%h4]
      }
      air.wait_all [%1]
    }
    air.wait_all [%0]
    %2 = air.launch async () in () args(%src=%arg1) : memref<1024xf32> {
      %3 = air.segment @pipe async args(%s=%src) : memref<1024xf32> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %c256 = arith.constant 256 : index
        %t0 = air.wait_all async
        %p = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %t0) -> (!air.token) {
          %pa = air.channel.put async [%t] @ca[] (%s[%c0] [%c256] [%c1]) : (memref<1024xf32>)
          %pb = air.channel.put async [%pa] @cb[] (%s[%c256] [%c256] [%c1]) : (memref<1024xf32>)
          %pc = air.channel.put async [%pb] @da[] (%s[%c0] [%c256] [%c1]) : (memref<1024xf32>)
          %pd = air.channel.put async [%pc] @db[] (%s[%c256] [%c256] [%c1]) : (memref<1024xf32>)
          scf.yield %pd : !air.token
        }
        %h5 = air.herd @steady async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
          %c0h = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c4h = arith.constant 4 : index
          %ta, %la = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %tb, %lb = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %ready = air.wait_all async [%ta, %tb]
          %r = scf.for %i = %c0h to %c4h step %c1h iter_args(%t = %ready) -> (!air.token) {
            %ga = air.channel.get async [%t] @ca[] (%la[] [] []) : (memref<256xf32, 2>)
            %gb = air.channel.get async [%ga] @cb[] (%lb[] [] []) : (memref<256xf32, 2>)
            scf.yield %gb : !air.token
          }
          %f = air.execute [%r] {
            memref.dealloc %la : memref<256xf32, 2>
            memref.dealloc %lb : memref<256xf32, 2>
          }
        }
        %h6 = air.herd @pipelined async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
          %c0h = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c4h = arith.constant 4 : index
          %ta, %la = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %tb, %lb = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %ready = air.wait_all async [%ta, %tb]
          %r:2 = scf.for %i = %c0h to %c4h step %c1h iter_args(%t1 = %ready, %t2 = %ready) -> (!air.token, !air.token) {
            %ga = air.channel.get async [%t1] @da[] (%la[] [] []) : (memref<256xf32, 2>)
            %gb = air.channel.get async [%ga, %t2] @db[] (%lb[] [] []) : (memref<256xf32, 2>)
            scf.yield %ga, %gb : !air.token, !air.token
          }
          %f = air.execute [%r#0, %r#1] {
            memref.dealloc %la : memref<256xf32, 2>
            memref.dealloc %lb : memref<256xf32, 2>
          }
        }
        air.wait_all [%p, %h5, %h6]
      }
      air.wait_all [%3]
      %4 = air.segment @mt_phases async args(%s=%src) : memref<1024xf32> attributes {x_size = 1 : i64, y_size = 1 : i64} {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c256 = arith.constant 256 : index
        %m = memref.alloc() : memref<4x256xf32, 1>
        scf.for %i = %c0 to %c2 step %c1 {
          %d0 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          %d1 = air.dma_memcpy_nd async (%m[%c1, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          %d2 = air.dma_memcpy_nd async (%m[%c2, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          %d3 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c256] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          air.wait_all [%d0, %d1, %d2, %d3]
        }
        scf.for %i = %c0 to %c2 step %c1 {
          %d0 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          %d1 = air.dma_memcpy_nd async (%m[%c1, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          %d2 = air.dma_memcpy_nd async (%m[%c2, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          %d3 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c256] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
          air.wait_all [%d0, %d1, %d2, %d3]
        }
        memref.dealloc %m : memref<4x256xf32, 1>
      }
      air.wait_all [%4]
    }
    air.wait_all [%2]
    return
  }
  func.func @flat(%arg0: memref<1024xf32>) {
    %0 = air.launch async () in () args(%src=%arg0) : memref<1024xf32> {
      %1 = air.segment @mt_flat async args(%s=%src) : memref<1024xf32> attributes {x_size = 1 : i64, y_size = 1 : i64} {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c256 = arith.constant 256 : index
        %m = memref.alloc() : memref<4x256xf32, 1>
        %d0 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d1 = air.dma_memcpy_nd async (%m[%c1, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d2 = air.dma_memcpy_nd async (%m[%c2, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d3 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c256] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d4 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d5 = air.dma_memcpy_nd async (%m[%c1, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d6 = air.dma_memcpy_nd async (%m[%c2, %c0] [%c1, %c256] [%c256, %c1], %s[%c0] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        %d7 = air.dma_memcpy_nd async (%m[%c0, %c0] [%c1, %c256] [%c256, %c1], %s[%c256] [%c256] [%c1]) : (memref<4x256xf32, 1>, memref<1024xf32>)
        air.wait_all [%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7]
        memref.dealloc %m : memref<4x256xf32, 1>
      }
      air.wait_all [%1]
    }
    air.wait_all [%0]
    return
  }
}
