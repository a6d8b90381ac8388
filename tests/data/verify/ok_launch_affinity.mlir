// RULE: none
// Affinity (and dependency) lists are fine on a launch.
func.func @f() {
  %t = air.token.alloc : !air.token
  %l = air.launch async [affinity = [%t]] () in () {
  }
  air.launch [dependency = [%l]] [affinity = [%t]] () in () {
  }
  return
}
