// RULE: structure
// Shape rules of the ops mlir-air's wider programs use, one violation per line.
#id = affine_map<(d0, d1) -> (d0, d1)>
memref.global "private" constant @three : memref<4xi32> = dense<[1, 2, 3]> // ERROR
memref.global "private" constant @nothing : memref<2xf32> // ERROR
memref.global @shape2 : memref<2xindex> = dense<[2, 8]>
func.func @f(%arg0: memref<16xf32>, %arg1: memref<*xf32>, %arg2: memref<4x4xf32>, %arg3: tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %arg1[] : memref<*xf32> // ERROR
  %u = memref.cast %arg1 : memref<*xf32> to memref<*xf32> // ERROR
  %s = memref.get_global @shape2 : memref<2xindex>
  %r = memref.reshape %arg0(%s) : (memref<16xf32>, memref<2xindex>) -> memref<2x4xf32> // ERROR
  %t = memref.transpose %arg2 (d0, d1) -> (d0, d0) : memref<4x4xf32> to memref<4x4xf32> // ERROR
  %base, %off, %sz:2, %st:2 = memref.extract_strided_metadata %arg0 : memref<16xf32> -> memref<f32>, index, index, index, index, index // ERROR
  %rc = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 8], strides: [8, 1] : memref<16xf32> to memref<4x4xf32> // ERROR
  %e = tensor.extract_slice %arg3[0, 0] [4, 4] [1, 1] : tensor<8xf32> to tensor<4xf32> // ERROR
  linalg.add ins(%arg2, %arg2 : memref<4x4xf32>, memref<4x4xf32>) outs(%arg0 : memref<16xf32>) // ERROR
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%arg2 : memref<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 2 : index // ERROR
    linalg.yield %o : f32
  }
  scf.forall (%i) = (0) to (8) step (0) { // ERROR
  }
  return
}
