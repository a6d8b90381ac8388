// RULE: launch-concurrency
// A launch's instances are may-be-parallel: no concurrency list (spec 2.1).
func.func @f() {
  %t = air.token.alloc : !air.token
  air.launch [concurrency = [%t]] () in () { // ERROR
  }
  return
}
