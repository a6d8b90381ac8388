// RULE: structure
// One program with many independent violations: every one is reported on its own
// line in a single run, so one bad op does not hide the rest.
air.channel @zero [0] // ERROR [broadcast-shape]
air.channel @shallow [1] {depth = 0} // ERROR [channel-type]
air.channel @pkt [1] {packet_ids = array<i32: 1>} // ERROR [channel-type]
air.channel @lonely [1]
func.func @f(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %t = air.token.alloc : !air.token
  air.segment @outside { // ERROR [nesting]
  }
  func.call @nowhere() : () -> () // ERROR [symbol]
  air.launch (%a) in (%n=%c1) args(%l3=%arg0, %o=%arg1) : memref<64xf32>, memref<64xf32> [concurrency = [%t]] { // ERROR [launch-concurrency]
    air.channel.put @undeclared[] (%l3[] [] []) : (memref<64xf32>) // ERROR [undeclared-channel]
    air.channel.put @lonely[] (%l3[] [] []) : (memref<64xf32>) // ERROR [deadlock]
    air.dma_memcpy_nd (%o[0] [32] [1], %l3[0] [16] [1]) : (memref<64xf32>, memref<64xf32>) // ERROR [dma-lists]
    air.segment @s args(%g=%l3) : memref<64xf32> {
      %c1_0 = arith.constant 1 : index
      air.herd @h tile (%x) in (%sx=%c1) args(%m=%g) : memref<64xf32> { // ERROR [isolation]
        %c0 = arith.constant 0 : index
        %v = memref.load %m[%c0] : memref<64xf32> // ERROR [memory-space]
        %s = arith.index_cast %w : i32 to index // ERROR [dominance]
        %w = arith.constant 3 : i32
        %b = memref.alloc() : memref<4x4xf32, 2>
        air.dma_memcpy_nd (%b[%c0, %c0] [%c1_0, %c1_0] [%c1_0, %c1_0], %m[] [] []) : (memref<4x4xf32, 2>, memref<64xf32>) // ERROR [isolation]
      }
      air.herd @cube tile (%p, %q, %r) in (%s1=%c1_0, %s2=%c1_0, %s3=%c1_0) { // ERROR
      }
    }
  }
  return
}
