// @par: an scf.parallel of 3 instances, each with a 1x2 herd and a 1 KiB L2
// buffer, sums to 6 tiles and 3 KiB. @stamp: a 2x1 segment iteration space of
// a 2x2 herd with 2 KiB of L2 per instance scales to 8 tiles and 4 KiB.
func.func @sums() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @par {
      %c0 = arith.constant 0 : index
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %start = air.wait_all async
      %p = scf.parallel (%i) = (%c0) to (%c3) step (%c1s) init (%start) -> !air.token {
        %t, %buf = air.execute -> (memref<256xf32, 1>) {
          %alloc = memref.alloc() : memref<256xf32, 1>
          air.execute_terminator %alloc : memref<256xf32, 1>
        }
        %h = air.herd async [%t] tile (%x, %y) in (%sx=%c1s, %sy=%c2) {
        }
        scf.reduce(%h : !air.token) {
        ^bb0(%a: !air.token, %b: !air.token):
          %w = air.wait_all async [%a, %b]
          scf.reduce.return %w : !air.token
        }
      }
    }
    %c2l = arith.constant 2 : index
    %c1l = arith.constant 1 : index
    air.segment @stamp unroll(%u, %v) in (%nu=%c2l, %nv=%c1l) {
      %c2 = arith.constant 2 : index
      %t, %buf = air.execute -> (memref<512xf32, 1>) {
        %alloc = memref.alloc() : memref<512xf32, 1>
        air.execute_terminator %alloc : memref<512xf32, 1>
      }
      %h = air.herd async [%t] tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
      %e = air.execute [%h] {
        memref.dealloc %buf : memref<512xf32, 1>
      }
    }
  }
  return
}
