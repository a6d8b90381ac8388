// RULE: memory-space
func.func @f(%a: memref<64xf32, 3>) { // ERROR
  return
}
