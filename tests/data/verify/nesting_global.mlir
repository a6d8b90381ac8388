// RULE: nesting
// memref.global is a symbol of a module, not an op of a function body.
func.func @f() {
  memref.global @local : memref<2xi32> = uninitialized // ERROR
  return
}
