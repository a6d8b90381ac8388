// Two herds trade data in both directions, in lockstep: @ping sends i and waits
// for the answer, @pong waits, answers 2i + 1. Neither can finish alone; the
// concurrency token says they are co-resident, and the run completes only if
// they really are (even on one worker thread).
air.channel @ab [1]
air.channel @ba [1]
func.func @exchange(%out: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%o=%out) : memref<8xi32> {
    air.segment @s args(%so=%o) : memref<8xi32> {
      %c1s = arith.constant 1 : index
      %co = air.token.alloc : !air.token
      %h0 = air.herd @ping async tile (%x) in (%sx=%c1s) args(%ho=%so) : memref<8xi32> [concurrency = [%co]] {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %buf = memref.alloc() : memref<1xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          %v = arith.index_cast %i : index to i32
          memref.store %v, %buf[%c0] : memref<1xi32, 2>
          air.channel.put @ab[%c0] (%buf[] [] []) : (memref<1xi32, 2>)
          air.channel.get @ba[%c0] (%buf[] [] []) : (memref<1xi32, 2>)
          %w = memref.load %buf[%c0] : memref<1xi32, 2>
          // element writes to L3 go through data movement (spec 1)
          air.dma_memcpy_nd (%ho[%i] [%c1h] [%c1h], %buf[%c0] [%c1h] [%c1h]) : (memref<8xi32>, memref<1xi32, 2>)
        }
        memref.dealloc %buf : memref<1xi32, 2>
      }
      %h1 = air.herd @pong async tile (%x) in (%sx=%c1s) [concurrency = [%co]] {
        %c0 = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8 = arith.constant 8 : index
        %two = arith.constant 2 : i32
        %one = arith.constant 1 : i32
        %buf = memref.alloc() : memref<1xi32, 2>
        scf.for %i = %c0 to %c8 step %c1h {
          air.channel.get @ab[%c0] (%buf[] [] []) : (memref<1xi32, 2>)
          %v = memref.load %buf[%c0] : memref<1xi32, 2>
          %m = arith.muli %v, %two : i32
          %a = arith.addi %m, %one : i32
          memref.store %a, %buf[%c0] : memref<1xi32, 2>
          air.channel.put @ba[%c0] (%buf[] [] []) : (memref<1xi32, 2>)
        }
        memref.dealloc %buf : memref<1xi32, 2>
      }
      air.wait_all [%h0, %h1]
    }
  }
  return
}
