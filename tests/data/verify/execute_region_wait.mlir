// RULE: execute-region
func.func @f() {
  air.launch () in () {
    %e = air.execute {
      %w = air.wait_all async // ERROR
    }
  }
  return
}
