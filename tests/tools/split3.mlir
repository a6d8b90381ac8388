// Three independent inputs; the second has a syntax error on line 15.
func.func @first() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
      }
    }
  }
  return
}

// -----
air.channel @good [2, 2]
air.channel @broken [2, oops]
func.func @second() {
  return
}

// -----   
func.func @third() {
  %c0 = arith.constant 0 : index
  %t = air.wait_all async
  air.wait_all [%t]
  return
}
