func.func @f(%m: memref<4xf32>, %i: index) {
  %v = affine.load %m[-%i + -symbol(%i) * -1 - (%i mod 4)] : memref<4xf32>
  return
}
