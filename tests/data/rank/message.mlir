// Message passing over a rank-level channel: rank 0 fills its copy of %a with
// 1, 2, 3, ... and sends it to every other rank, each of which receives it into
// its copy of %b. The rank count is the argument %nr (2 and 4 in the tests).
air.channel @mail [64]
func.func @message(%nr: index, %a: memref<16xf32>, %b: memref<16xf32>) {
  air.rank (%r) in (%n=%nr) args(%x=%a, %y=%b) : memref<16xf32>, memref<16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %is0 = arith.cmpi eq, %r, %c0 : index
    scf.if %is0 {
      scf.for %i = %c0 to %c16 step %c1 {
        %ii = arith.index_cast %i : index to i32
        %v0 = arith.sitofp %ii : i32 to f32
        %one = arith.constant 1.0 : f32
        %v = arith.addf %v0, %one : f32
        memref.store %v, %x[%i] : memref<16xf32>
      }
      scf.for %p = %c1 to %n step %c1 {
        air.channel.put @mail[%p] (%x[] [] []) : (memref<16xf32>)
      }
    } else {
      air.channel.get @mail[%r] (%y[] [] []) : (memref<16xf32>)
    }
  }
  return
}
