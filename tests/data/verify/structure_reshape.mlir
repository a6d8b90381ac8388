// RULE: structure
// Reassociation groups must multiply up to the collapsed size, cover every
// dimension in order, and output_shape must agree with the result type.
func.func @f(%m: memref<4x8x16xf32>, %n: memref<32x16xf32>, %i: index) {
  %0 = memref.collapse_shape %m [[0], [1, 2]] : memref<4x8x16xf32> into memref<32x16xf32> // ERROR
  %1 = memref.collapse_shape %m [[0, 2], [1]] : memref<4x8x16xf32> into memref<64x8xf32> // ERROR
  %2 = memref.expand_shape %n [[0, 1], [2]] output_shape [4, 8, 15] : memref<32x16xf32> into memref<4x8x16xf32> // ERROR
  %3 = memref.cast %n : memref<32x16xf32> to memref<?x8xf32> // ERROR
  %4 = memref.collapse_shape %m [[0, 1], [2]] : memref<4x8x16xf32> into memref<32x16xi32> // ERROR
  return
}
