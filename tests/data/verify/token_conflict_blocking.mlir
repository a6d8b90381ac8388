// RULE: token-conflict
// The first segment is blocking, so the second starts only after it ends.
func.func @f() {
  air.launch () in () {
    %c = air.token.alloc : !air.token
    air.segment @one [concurrency = [%c]] {
    }
    %s2 = air.segment @two async [concurrency = [%c]] { // ERROR
    }
  }
  return
}
