// RULE: launch-token-scope
// A concurrency token defined outside the launch, named directly inside it.
func.func @f() {
  %t = air.token.alloc : !air.token
  air.launch () in () {
    air.segment @s [concurrency = [%t]] { // ERROR
    }
  }
  return
}
