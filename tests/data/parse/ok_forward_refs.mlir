// expect-ok
// A value may be used before its definition in the same isolated region (also
// from a nested region); the definition fills in the placeholder.
func.func @forward(%c: i1) {
  %0 = arith.addi %later, %later : index
  scf.if %c {
    %1 = arith.muli %later, %0 : index
  }
  %later = arith.constant 3 : index
  %t = air.wait_all async [%tok#0]
  %tok:2 = air.execute -> (index) {
    air.execute_terminator %later : index
  }
  return
}
