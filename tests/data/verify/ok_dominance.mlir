// RULE: none
func.func @f() -> index {
  %x = arith.constant 1 : index
  %y = arith.addi %x, %x : index
  return %y : index
}
