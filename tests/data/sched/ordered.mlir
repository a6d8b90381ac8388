// Resources of ops ordered by the async graph are reused. @seq: two 4x4 herds,
// the second waiting for the first, hold 16 tiles at a time. @outer: two nested
// segments of one 2x2 herd each, the second after the first, hold 4. @both: the
// same two herds as @seq with no order between them need 32 tiles.
func.func @ordered() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @seq {
      %c4 = arith.constant 4 : index
      %a = air.herd @first async tile (%x, %y) in (%sx=%c4, %sy=%c4) {
      }
      %b = air.herd @second async [%a] tile (%x, %y) in (%sx=%c4, %sy=%c4) {
      }
      air.wait_all [%b]
    }
  }
  air.launch (%l) in (%nl=%c1) {
    air.segment @outer {
      %s1 = air.segment @in1 async {
        %c2 = arith.constant 2 : index
        air.herd @h1 tile (%x, %y) in (%sx=%c2, %sy=%c2) {
        }
      }
      %s2 = air.segment @in2 async [%s1] {
        %c2 = arith.constant 2 : index
        air.herd @h2 tile (%x, %y) in (%sx=%c2, %sy=%c2) {
        }
      }
      air.wait_all [%s2]
    }
  }
  air.launch (%l) in (%nl=%c1) {
    air.segment @both {
      %c4 = arith.constant 4 : index
      %a = air.herd @one async tile (%x, %y) in (%sx=%c4, %sy=%c4) {
      }
      %b = air.herd @two async tile (%x, %y) in (%sx=%c4, %sy=%c4) {
      }
      air.wait_all [%a, %b]
    }
  }
  return
}
