// A producer herd puts 8 transfers into a channel; a consumer herd gets them,
// calling @check_ahead before each get. The consumer is slow, so the producer
// runs ahead until the channel holds `depth` unread transfers, and no further.
// @mark_put records each completed put. One entry point per depth.
air.channel @c1 [1] {depth = 1}
air.channel @c2 [1] {depth = 2}
air.channel @c3 [1] {depth = 3}
func.func private @mark_put(index)
func.func private @check_ahead(index)
func.func @ahead_1(%out: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%lx) in (%nl=%c1) args(%o=%out) : memref<8xi32> {
    air.segment @s args(%so=%o) : memref<8xi32> {
      %c1s = arith.constant 1 : index
      %p = air.herd @prod async tile (%x) in (%sx=%c1s) {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<4xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          %v = arith.index_cast %i : index to i32
          memref.store %v, %buf[%c0] : memref<4xi32, 2>
          air.channel.put @c1[%c0] (%buf[] [] []) : (memref<4xi32, 2>)
          func.call @mark_put(%i) : (index) -> ()
        }
        memref.dealloc %buf : memref<4xi32, 2>
      }
      %g = air.herd @cons async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<8xi32> {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<4xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          func.call @check_ahead(%i) : (index) -> ()
          air.channel.get @c1[%c0] (%buf[] [] []) : (memref<4xi32, 2>)
          %v = memref.load %buf[%c0] : memref<4xi32, 2>
          // element writes to L3 go through data movement (spec 1)
          air.dma_memcpy_nd (%ho[%i] [%c1h] [%c1h], %buf[%c0] [%c1h] [%c1h]) : (memref<8xi32>, memref<4xi32, 2>)
        }
        memref.dealloc %buf : memref<4xi32, 2>
      }
      air.wait_all [%p, %g]
    }
  }
  return
}
func.func @ahead_2(%out: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%lx) in (%nl=%c1) args(%o=%out) : memref<8xi32> {
    air.segment @s args(%so=%o) : memref<8xi32> {
      %c1s = arith.constant 1 : index
      %p = air.herd @prod async tile (%x) in (%sx=%c1s) {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<4xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          %v = arith.index_cast %i : index to i32
          memref.store %v, %buf[%c0] : memref<4xi32, 2>
          air.channel.put @c2[%c0] (%buf[] [] []) : (memref<4xi32, 2>)
          func.call @mark_put(%i) : (index) -> ()
        }
        memref.dealloc %buf : memref<4xi32, 2>
      }
      %g = air.herd @cons async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<8xi32> {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<4xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          func.call @check_ahead(%i) : (index) -> ()
          air.channel.get @c2[%c0] (%buf[] [] []) : (memref<4xi32, 2>)
          %v = memref.load %buf[%c0] : memref<4xi32, 2>
          // element writes to L3 go through data movement (spec 1)
          air.dma_memcpy_nd (%ho[%i] [%c1h] [%c1h], %buf[%c0] [%c1h] [%c1h]) : (memref<8xi32>, memref<4xi32, 2>)
        }
        memref.dealloc %buf : memref<4xi32, 2>
      }
      air.wait_all [%p, %g]
    }
  }
  return
}
func.func @ahead_3(%out: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%lx) in (%nl=%c1) args(%o=%out) : memref<8xi32> {
    air.segment @s args(%so=%o) : memref<8xi32> {
      %c1s = arith.constant 1 : index
      %p = air.herd @prod async tile (%x) in (%sx=%c1s) {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<4xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          %v = arith.index_cast %i : index to i32
          memref.store %v, %buf[%c0] : memref<4xi32, 2>
          air.channel.put @c3[%c0] (%buf[] [] []) : (memref<4xi32, 2>)
          func.call @mark_put(%i) : (index) -> ()
        }
        memref.dealloc %buf : memref<4xi32, 2>
      }
      %g = air.herd @cons async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<8xi32> {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<4xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          func.call @check_ahead(%i) : (index) -> ()
          air.channel.get @c3[%c0] (%buf[] [] []) : (memref<4xi32, 2>)
          %v = memref.load %buf[%c0] : memref<4xi32, 2>
          // element writes to L3 go through data movement (spec 1)
          air.dma_memcpy_nd (%ho[%i] [%c1h] [%c1h], %buf[%c0] [%c1h] [%c1h]) : (memref<8xi32>, memref<4xi32, 2>)
        }
        memref.dealloc %buf : memref<4xi32, 2>
      }
      air.wait_all [%p, %g]
    }
  }
  return
}
