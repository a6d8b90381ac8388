// expect-error: 2:27: expected 'x' after a memref dimension
func.func @f(%a: memref<64 64xf32>) {
  return
}
