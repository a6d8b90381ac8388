// RULE: none
func.func private @kernel(memref<64xf32, 2>)
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %t, %b = air.execute -> (memref<64xf32, 2>) {
          %a = memref.alloc() : memref<64xf32, 2>
          air.execute_terminator %a : memref<64xf32, 2>
        }
        %k = air.execute [%t] {
          func.call @kernel(%b) : (memref<64xf32, 2>) -> ()
        }
        %d = air.execute [%k] {
          memref.dealloc %b : memref<64xf32, 2>
        }
      }
    }
  }
  return
}
