// RULE: memory-space
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %t, %b = air.execute -> (memref<64xf32, 1>) {
          %a = memref.alloc() : memref<64xf32, 1> // ERROR
          air.execute_terminator %a : memref<64xf32, 1>
        }
      }
    }
  }
  return
}
