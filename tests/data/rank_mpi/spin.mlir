// One rank computes for far longer than --timeout while its peer waits for it
// at a collective (run under mpirun -np 2 --timeout, tests/rank.cmake): both
// processes must end soon after the timeout with an error, not wait for MPI.
func.func @spin(%nr: index, %a: memref<4xf32>) {
  air.rank (%r) in (%n=%nr) args(%x=%a) : memref<4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %big = arith.constant 100000 : index
    %one = arith.cmpi eq, %r, %c1 : index
    scf.if %one {
      scf.for %i = %c0 to %big step %c1 {
        scf.for %j = %c0 to %big step %c1 {
          %v = memref.load %x[%c0] : memref<4xf32>
          %w = arith.addf %v, %v : f32
          memref.store %w, %x[%c0] : memref<4xf32>
        }
      }
    }
    %h = memref.alloc() {air.symmetric} : memref<4xf32>
    memref.dealloc %h : memref<4xf32>
  }
  return
}
