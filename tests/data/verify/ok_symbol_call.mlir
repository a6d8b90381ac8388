// RULE: none
func.func private @kernel(memref<64xf32>)
func.func @f(%a: memref<64xf32>) {
  func.call @kernel(%a) : (memref<64xf32>) -> ()
  return
}
