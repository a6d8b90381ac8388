// RULE: none
// Trip counts known only at run time are not checked (no false alarms).
air.channel @c [1]
func.func @f(%n: index) {
  air.launch () in () args(%m=%n) : index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = memref.alloc() : memref<64xf32>
    scf.for %k = %c0 to %m step %c1 {
      %p = air.channel.put async @c[%c0] (%buf[] [] []) : (memref<64xf32>)
    }
    air.segment @s args(%mm=%m) : index {
      %c0_0 = arith.constant 0 : index
      %c1_0 = arith.constant 1 : index
      %b = memref.alloc() : memref<64xf32, 1>
      scf.for %k = %c0_0 to %mm step %c1_0 {
        air.channel.get @c[%c0_0] (%b[] [] []) : (memref<64xf32, 1>)
      }
    }
  }
  return
}
