// RULE: none
// Dependency tokens may cross the launch boundary; affinity tokens made inside
// the launch may be passed down freely.
func.func @f() {
  %dep = air.wait_all async
  air.launch () in () args(%d=%dep) : !air.token {
    %t = air.token.alloc : !air.token
    air.segment @s [dependency = [%d]] args(%st=%t) : !air.token {
      %c1 = arith.constant 1 : index
      air.herd @h [affinity = [%st]] tile (%x, %y) in (%sx=%c1, %sy=%c1) {
      }
    }
  }
  return
}
