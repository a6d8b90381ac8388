// RULE: launch-token-scope
// An affinity token created outside the launch and threaded in through args,
// then through the segment's args, is used in a herd's affinity list.
func.func @f() {
  %t = air.token.alloc : !air.token
  air.launch () in () args(%lt=%t) : !air.token {
    air.segment @s args(%st=%lt) : !air.token {
      %c1 = arith.constant 1 : index
      air.herd @h [affinity = [%st]] tile (%x, %y) in (%sx=%c1, %sy=%c1) { // ERROR
      }
    }
  }
  return
}
