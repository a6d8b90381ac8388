// RULE: token-conflict
// Concurrency partners must overlap, but @two waits for @one to finish.
func.func @f() {
  air.launch () in () {
    %c = air.token.alloc : !air.token
    %s1 = air.segment @one async [concurrency = [%c]] {
    }
    %w = air.wait_all async [%s1]
    %s2 = air.segment @two async [dependency = [%w]] [concurrency = [%c]] { // ERROR
    }
  }
  return
}
