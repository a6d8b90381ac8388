// scf.forall on memrefs, as bufferized tiling leaves it for air-par-to-herd: a
// normalised 4x4 forall of elementwise adds on 16x16 tiles (with a mapping
// attribute), and a forall with explicit bounds, a dynamic upper bound and a step.
// VERIFY: ok
// RUN: @forall_add
// RUN: @forall_strided
#map = affine_map<(d0) -> (d0 * 16)>
module {
  func.func @forall_add(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64x64xf32>) {
    scf.forall (%arg3, %arg4) in (4, 4) {
      %0 = affine.apply #map(%arg3)
      %1 = affine.apply #map(%arg4)
      %subview = memref.subview %arg0[%0, %1] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[%0, %1] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      %subview_1 = memref.subview %arg2[%0, %1] [16, 16] [1, 1] : memref<64x64xf32> to memref<16x16xf32, strided<[64, 1], offset: ?>>
      linalg.add ins(%subview, %subview_0 : memref<16x16xf32, strided<[64, 1], offset: ?>>, memref<16x16xf32, strided<[64, 1], offset: ?>>) outs(%subview_1 : memref<16x16xf32, strided<[64, 1], offset: ?>>)
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  func.func @forall_strided(%arg0: memref<128xi32>, %arg1: memref<128xi32>) {
    %c100 = arith.constant 100 : index
    %c3_i32 = arith.constant 3 : i32
    scf.forall (%arg2) = (4) to (%c100) step (8) {
      %0 = memref.load %arg0[%arg2] : memref<128xi32>
      %1 = arith.muli %0, %c3_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<128xi32>
    }
    return
  }
}
