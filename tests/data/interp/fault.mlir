// Every tile of a 2x2 herd runs a kernel and then sends its buffer to the
// segment; the kernel fails on one tile. The put and the gets waiting for that
// tile can never run: the run fails with the kernel's status instead.
air.channel @fan [2, 2]
func.func private @work(memref<16xf32, 2>)
func.func @faulty(%out: memref<2x2x16xf32>) {
  %c1 = arith.constant 1 : index
  %t = air.launch async (%l) in (%nl=%c1) args(%o=%out) : memref<2x2x16xf32> {
    %s = air.segment @s async args(%so=%o) : memref<2x2x16xf32> {
      %c0 = arith.constant 0 : index
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %h = air.herd @h async tile (%x, %y) in (%sx=%c2, %sy=%c2) {
        %t0, %buf = air.execute -> (memref<16xf32, 2>) {
          %a = memref.alloc() : memref<16xf32, 2>
          air.execute_terminator %a : memref<16xf32, 2>
        }
        %k = air.execute [%t0] {
          func.call @work(%buf) : (memref<16xf32, 2>) -> ()
        }
        %p = air.channel.put async [%k] @fan[%x, %y] (%buf[] [] []) : (memref<16xf32, 2>)
        %d = air.execute [%p] {
          memref.dealloc %buf : memref<16xf32, 2>
        }
      }
      %i0 = air.wait_all async
      %g = scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1s, %c1s) init (%i0) -> !air.token {
        %r = air.channel.get async @fan[%i, %j] (%so[%i, %j, %c0] [%c1s, %c1s, %c16] [%c32, %c16, %c1s]) : (memref<2x2x16xf32>)
        scf.reduce(%r : !air.token) {
        ^bb0(%a: !air.token, %b: !air.token):
          %w = air.wait_all async [%a, %b]
          scf.reduce.return %w : !air.token
        }
      }
      air.wait_all [%g, %h]
    }
  }
  air.wait_all [%t]
  return
}
