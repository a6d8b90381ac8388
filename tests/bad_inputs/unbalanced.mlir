// A failing input (tests/bad_inputs/README.md): every tile reads two blocks from
// @c but the segment sends each one block, which the verifier's channel-balance
// rule rejects (so air-run fails before running, and must not leak doing so).
air.channel @c [4, 1]
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %buf = memref.alloc() : memref<256xf32, 1>
      scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
        %p = air.channel.put async @c[%i, %c0] (%buf[] [] []) : (memref<256xf32, 1>)
      }
      air.herd @h tile (%x, %y) in (%sx=%c4, %sy=%c1) {
        %c0_0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c2_0 = arith.constant 2 : index
        %b = memref.alloc() : memref<256xf32, 2>
        scf.for %k = %c0_0 to %c2_0 step %c1_0 {
          air.channel.get @c[%x, %y] (%b[] [] []) : (memref<256xf32, 2>)
        }
      }
    }
  }
  return
}
