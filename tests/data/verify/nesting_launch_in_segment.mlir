// RULE: nesting
// air.launch is the outermost level.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      air.launch () in () { // ERROR
      }
    }
  }
  return
}
