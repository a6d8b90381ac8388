// RULE: token-conflict
// Sharing an affinity token serialises the two segments; sharing a
// concurrency token forces them to overlap. Both cannot hold.
func.func @f() {
  air.launch () in () {
    %a = air.token.alloc : !air.token
    %c = air.token.alloc : !air.token
    %s1 = air.segment @one async [affinity = [%a]] [concurrency = [%c]] {
    }
    %s2 = air.segment @two async [affinity = [%a]] [concurrency = [%c]] { // ERROR
    }
  }
  return
}
