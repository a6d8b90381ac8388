// A host-level mix for the .airbin tests: an L3 transient buffer, DMAs on the
// dma queue, a channel put/get pair (one group: they must run at once), two
// launches on the compute queues and a barrier-like wait_all, so every section of
// the artifact has records to corrupt.
module {
  air.channel @ch [1, 1]
  func.func @host(%a: memref<256xi32>, %b: memref<256xi32>) {
    %c1 = arith.constant 1 : index
    %t0, %buf = air.execute -> (memref<256xi32>) {
      %m = memref.alloc() : memref<256xi32>
      air.execute_terminator %m : memref<256xi32>
    }
    %d0 = air.dma_memcpy_nd async [%t0] (%buf[] [] [], %a[] [] []) : (memref<256xi32>, memref<256xi32>)
    %p = air.channel.put async [%d0] @ch[] (%buf[] [] []) : (memref<256xi32>)
    %g = air.channel.get async [%d0] @ch[] (%b[] [] []) : (memref<256xi32>)
    %l0 = air.launch async [%g] (%x) in (%nx=%c1) args(%la=%b) : memref<256xi32> {
      %s = air.segment @seg0 async args(%sa=%la) : memref<256xi32> {
        %c1s = arith.constant 1 : index
        %h = air.herd @h0 async tile (%tx, %ty) in (%sx=%c1s, %sy=%c1s) args(%ha=%sa) : memref<256xi32> {
          %t1, %l1 = air.execute -> (memref<64xi32, 2>) {
            %m1 = memref.alloc() : memref<64xi32, 2>
            air.execute_terminator %m1 : memref<64xi32, 2>
          }
          %t3, %l3 = air.execute -> (memref<32xi32, 2>) {
            %m3 = memref.alloc() : memref<32xi32, 2>
            air.execute_terminator %m3 : memref<32xi32, 2>
          }
          %t2 = air.execute [%t1, %t3] {
            memref.dealloc %l1 : memref<64xi32, 2>
            memref.dealloc %l3 : memref<32xi32, 2>
          }
        }
      }
    }
    %l1 = air.launch async [%g] (%y) in (%ny=%c1) {
      %s2 = air.segment @seg1 async {
        %c1t = arith.constant 1 : index
        %h2 = air.herd @h1 async tile (%ux, %uy) in (%vx=%c1t, %vy=%c1t) {
        }
      }
    }
    %d1 = air.dma_memcpy_nd async [%l0, %l1] (%a[] [] [], %b[] [] []) : (memref<256xi32>, memref<256xi32>)
    %w = air.wait_all async [%p, %d1]
    %e = air.execute [%w] {
      memref.dealloc %buf : memref<256xi32>
    }
    air.wait_all [%e]
    return
  }
}
