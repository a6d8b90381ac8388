// expect-error: 5:8: unsupported operation 'vector.transfer_read'
func.func @f(%m: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %v = vector.transfer_read %m[%c0], %cst : memref<16xf32>, vector<16xf32>
  return
}
