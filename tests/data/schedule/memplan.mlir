// Memory plan: L3 %a and %b are never live together (the dealloc of %a is a
// barrier before %b), so they share offset 0; %c overlaps both. In the herd, %x is
// freed (token %fx) before %y is made ([%fx]), so they share L1; %z is live
// alongside both. The segment's two L2 buffers overlap in time.
module {
  func.func @plan(%arg0: memref<1024xf32>) {
    %c = memref.alloc() : memref<512xf32>
    %a = memref.alloc() : memref<1024xf32>
    memref.dealloc %a : memref<1024xf32>
    %tb, %b = air.execute -> (memref<1024xf32>) {
      %alloc = memref.alloc() : memref<1024xf32>
      air.execute_terminator %alloc : memref<1024xf32>
    }
    %l = air.launch async [%tb] args(%in=%arg0) : memref<1024xf32> {
      %s = air.segment @seg async args(%sin=%in) : memref<1024xf32> {
        %c1 = arith.constant 1 : index
        %t0, %m0 = air.execute -> (memref<256xf32, 1>) {
          %alloc = memref.alloc() : memref<256xf32, 1>
          air.execute_terminator %alloc : memref<256xf32, 1>
        }
        %t1, %m1 = air.execute -> (memref<256xf32, 1>) {
          %alloc = memref.alloc() : memref<256xf32, 1>
          air.execute_terminator %alloc : memref<256xf32, 1>
        }
        %h = air.herd @work async [%t0, %t1] tile (%tx, %ty) in (%sx=%c1, %sy=%c1) args(%hin=%sin) : memref<1024xf32> {
          %c0 = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c64 = arith.constant 64 : index
          %tz, %z = air.execute -> (memref<16xf32, 2>) {
            %alloc = memref.alloc() : memref<16xf32, 2>
            air.execute_terminator %alloc : memref<16xf32, 2>
          }
          %tx0, %x = air.execute -> (memref<64xf32, 2>) {
            %alloc = memref.alloc() : memref<64xf32, 2>
            air.execute_terminator %alloc : memref<64xf32, 2>
          }
          %dx = air.dma_memcpy_nd async [%tx0] (%x[] [] [], %hin[%c0] [%c64] [%c1h]) : (memref<64xf32, 2>, memref<1024xf32>)
          %fx = air.execute [%dx] {
            memref.dealloc %x : memref<64xf32, 2>
          }
          %ty0, %y = air.execute [%fx] -> (memref<64xf32, 2>) {
            %alloc = memref.alloc() : memref<64xf32, 2>
            air.execute_terminator %alloc : memref<64xf32, 2>
          }
          %dy = air.dma_memcpy_nd async [%ty0] (%y[] [] [], %hin[%c0] [%c64] [%c1h]) : (memref<64xf32, 2>, memref<1024xf32>)
          %fy = air.execute [%dy] {
            memref.dealloc %y : memref<64xf32, 2>
          }
          %fz = air.execute [%tz, %fy] {
            memref.dealloc %z : memref<16xf32, 2>
          }
        }
        %f = air.execute [%h] {
          memref.dealloc %m0 : memref<256xf32, 1>
          memref.dealloc %m1 : memref<256xf32, 1>
        }
      }
    }
    %fb = air.execute [%l] {
      memref.dealloc %b : memref<1024xf32>
    }
    air.wait_all [%fb]
    memref.dealloc %c : memref<512xf32>
    return
  }
}
