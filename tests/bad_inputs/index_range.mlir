// A failing input (tests/bad_inputs/README.md): a negative number for an index
// argument (a trip count here), which air-run refuses before running.
// air-run-args: --input 0=-1 --output 1=out.npy
func.func @count(%n: index, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.000000e+00 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %out[%c0] : memref<1xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %out[%c0] : memref<1xf32>
  }
  return
}
