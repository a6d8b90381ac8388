// Channel partners at the host level: the put on @in and the launch whose herd
// gets from @in are one group; the two launches on @mid are another; the dma and
// the launch without channels are in none.
module {
  air.channel @in [1, 1]
  air.channel @mid [1, 1]
  func.func @groups(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {
    %p = air.channel.put async @in[] (%arg0[] [] []) : (memref<64xf32>)
    %l0 = air.launch async args(%a=%arg0) : memref<64xf32> {
      %s = air.segment @s0 async {
        %c1 = arith.constant 1 : index
        %h = air.herd @h0 async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
          %t, %buf = air.execute -> (memref<64xf32, 2>) {
            %alloc = memref.alloc() : memref<64xf32, 2>
            air.execute_terminator %alloc : memref<64xf32, 2>
          }
          %g = air.channel.get async [%t] @in[] (%buf[] [] []) : (memref<64xf32, 2>)
          %q = air.channel.put async [%g] @mid[] (%buf[] [] []) : (memref<64xf32, 2>)
          %f = air.execute [%q] {
            memref.dealloc %buf : memref<64xf32, 2>
          }
        }
      }
    }
    %l1 = air.launch async args(%b=%arg1) : memref<64xf32> {
      %s = air.segment @s1 async args(%sb=%b) : memref<64xf32> {
        %c1 = arith.constant 1 : index
        %h = air.herd @h1 async tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%m=%sb) : memref<64xf32> {
          %g = air.channel.get async @mid[] (%m[] [] []) : (memref<64xf32>)
        }
      }
    }
    %d = air.dma_memcpy_nd async (%arg1[] [] [], %arg0[] [] []) : (memref<64xf32>, memref<64xf32>)
    %l2 = air.launch async [%d] args(%c=%arg1) : memref<64xf32> {
    }
    air.wait_all [%p, %l0, %l1, %l2]
    return
  }
}
