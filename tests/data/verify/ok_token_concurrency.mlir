// RULE: none
// Two async segments sharing a concurrency token and no ordering between them.
func.func @f() {
  air.launch () in () {
    %c = air.token.alloc : !air.token
    %s1 = air.segment @one async [concurrency = [%c]] {
    }
    %s2 = air.segment @two async [concurrency = [%c]] {
    }
    air.wait_all [%s1, %s2]
  }
  return
}
