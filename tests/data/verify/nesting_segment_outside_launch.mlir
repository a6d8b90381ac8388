// RULE: nesting
func.func @f() {
  air.segment @s { // ERROR
  }
  return
}
