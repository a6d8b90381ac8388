// expect-error: 5:34: expected '!air.universe', found 'index'
// air.universe.alloc returns a universe; another written type is an error.
func.func @f() {
  %c2 = arith.constant 2 : index
  %u = air.universe.alloc(%c2) : index
  return
}
