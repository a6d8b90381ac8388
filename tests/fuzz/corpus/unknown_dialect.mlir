func.func @g(%arg0: memref<16xi32>) {
  %0 = "test.opaque"(%arg0) : (memref<16xi32>) -> i32
  %1 = vector.transfer_read %arg0[%c0], %pad : memref<16xi32>, vector<16xi32>
  return
}
