// expect-error: 5:3: 'scf.parallel' has 1 init value but its body reduces 0
func.func @f(%t: !air.token) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.parallel (%i) = (%c0) to (%c1) step (%c1) init (%t) -> !air.token {
    %w = air.wait_all async [%t]
  }
  return
}
