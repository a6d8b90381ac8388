// RULE: symbol
func.func @f(%a: memref<64xf32>) {
  func.call @kernel(%a) : (memref<64xf32>) -> () // ERROR
  return
}
