// expect-error: 4:5: redefinition of value '%i' (first defined at 3:11)
func.func @f(%lb: index, %ub: index) {
  scf.for %i = %lb to %ub step %lb {
    %i = arith.constant 0 : index
  }
  return
}
