// RULE: none
// The condition depends on data, but both branches send one block.
air.channel @c [1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %buf = memref.alloc() : memref<64xf32, 1>
      %h = air.herd @h async tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %c0_0 = arith.constant 0 : index
        %zero = arith.constant 0.0 : f32
        %b = memref.alloc() : memref<64xf32, 2>
        %v = memref.load %b[%c0_0] : memref<64xf32, 2>
        %pos = arith.cmpf ogt, %v, %zero : f32
        scf.if %pos {
          air.channel.put @c[%c0_0] (%b[] [] []) : (memref<64xf32, 2>)
        } else {
          linalg.fill ins(%zero : f32) outs(%b : memref<64xf32, 2>)
          air.channel.put @c[%c0_0] (%b[] [] []) : (memref<64xf32, 2>)
        }
      }
      %g = air.channel.get async @c[%c0] (%buf[] [] []) : (memref<64xf32, 1>)
    }
  }
  return
}
