// RULE: dominance
func.func @f() -> index {
  %y = arith.addi %x, %x : index // ERROR
  %x = arith.constant 1 : index
  return %y : index
}
