// RULE: memory-space
// A launch takes L3 memrefs (spec 2.1).
func.func @f(%a: memref<64xf32, 1>) {
  air.launch () in () args(%x=%a) : memref<64xf32, 1> { // ERROR
  }
  return
}
