// scf.forall with shared_outs on tensors, before bufferization: each of 2x2
// instances computes a 32x32 tile (extract_slice, fill, an elementwise add) and
// hands it back with tensor.parallel_insert_slice in scf.forall.in_parallel. The
// CPU driver runs bufferized programs only, so running this is refused at the op.
// VERIFY: ok
// RUN-ERROR: @to_from_memref: not executable
#map = affine_map<(d0) -> (d0 * 32)>
module {
  func.func @forall_tensor(%arg0: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x64xf32>
    %1 = scf.forall (%arg1, %arg2) in (2, 2) shared_outs(%arg3 = %0) -> (tensor<64x64xf32>) {
      %2 = affine.apply #map(%arg1)
      %3 = affine.apply #map(%arg2)
      %extracted_slice = tensor.extract_slice %arg0[%2, %3] [32, 32] [1, 1] : tensor<64x64xf32> to tensor<32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg3[%2, %3] [32, 32] [1, 1] : tensor<64x64xf32> to tensor<32x32xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%extracted_slice_0 : tensor<32x32xf32>) -> tensor<32x32xf32>
      %5 = linalg.add ins(%extracted_slice, %4 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%4 : tensor<32x32xf32>) -> tensor<32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg3[%2, %3] [32, 32] [1, 1] : tensor<32x32xf32> into tensor<64x64xf32>
      }
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    return %1 : tensor<64x64xf32>
  }
  func.func @to_from_memref(%arg0: memref<16xi32>) -> memref<16xi32> {
    %0 = bufferization.to_tensor %arg0 restrict writable : memref<16xi32>
    %1 = tensor.empty() : tensor<16xi32>
    %2 = linalg.copy ins(%0 : tensor<16xi32>) outs(%1 : tensor<16xi32>) -> tensor<16xi32>
    %inserted_slice = tensor.insert_slice %2 into %1[0] [16] [1] : tensor<16xi32> into tensor<16xi32>
    %3 = bufferization.to_memref %inserted_slice : memref<16xi32>
    return %3 : memref<16xi32>
  }
}
