// The sixteen PEs of a 4x4 herd form a chain with blocking puts and gets: PE
// k = 4x + y receives from @link[k], adds k + 1 and sends to @link[k + 1]; the
// segment feeds @link[0] and drains @link[16]. PEs spend most of their time
// parked, so the herd runs on one worker thread as well as on two.
#k = affine_map<()[s0, s1] -> (s0 * 4 + s1)>
air.channel @link [17]
func.func @chain(%in: memref<8x32xi32>, %out: memref<8x32xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%a=%in, %o=%out) : memref<8x32xi32>, memref<8x32xi32> {
    air.segment @s args(%sa=%a, %so=%o) : memref<8x32xi32>, memref<8x32xi32> {
      %c0 = arith.constant 0 : index
      %c1s = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %h = air.herd @chain async tile (%x, %y) in (%sx=%c4, %sy=%c4) {
        %c0h = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c8h = arith.constant 8 : index
        %c32h = arith.constant 32 : index
        %k = affine.apply #k()[%x, %y]
        %k1 = arith.addi %k, %c1h : index
        %kv = arith.index_cast %k1 : index to i32
        %buf = memref.alloc() : memref<32xi32, 2>
        scf.for %r = %c0h to %c8h step %c1h {
          air.channel.get @link[%k] (%buf[] [] []) : (memref<32xi32, 2>)
          scf.for %j = %c0h to %c32h step %c1h {
            %v = memref.load %buf[%j] : memref<32xi32, 2>
            %w = arith.addi %v, %kv : i32
            memref.store %w, %buf[%j] : memref<32xi32, 2>
          }
          air.channel.put @link[%k1] (%buf[] [] []) : (memref<32xi32, 2>)
        }
        memref.dealloc %buf : memref<32xi32, 2>
      }
      scf.for %r = %c0 to %c8 step %c1s {
        air.channel.put @link[%c0] (%sa[%r, %c0] [%c1s, %c32] [%c32, %c1s]) : (memref<8x32xi32>)
      }
      scf.for %r = %c0 to %c8 step %c1s {
        air.channel.get @link[%c16] (%so[%r, %c0] [%c1s, %c32] [%c32, %c1s]) : (memref<8x32xi32>)
      }
      air.wait_all [%h]
    }
  }
  return
}
