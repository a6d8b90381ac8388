// Two herds share an affinity token, so they use the same resources one after
// the other and never overlap. @together is the same without the token: there
// the herds run at the same time.
func.func private @busy(index)
func.func @apart() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @s {
      %c1s = arith.constant 1 : index
      %g = air.token.alloc : !air.token
      %h0 = air.herd @h0 async tile (%x) in (%sx=%c1s) [affinity = [%g]] {
        %c0 = arith.constant 0 : index
        func.call @busy(%c0) : (index) -> ()
      }
      %h1 = air.herd @h1 async tile (%x) in (%sx=%c1s) [affinity = [%g]] {
        %c1h = arith.constant 1 : index
        func.call @busy(%c1h) : (index) -> ()
      }
      air.wait_all [%h0, %h1]
    }
  }
  return
}
func.func @together() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    air.segment @s {
      %c1s = arith.constant 1 : index
      %h0 = air.herd @h0 async tile (%x) in (%sx=%c1s) {
        %c0 = arith.constant 0 : index
        func.call @busy(%c0) : (index) -> ()
      }
      %h1 = air.herd @h1 async tile (%x) in (%sx=%c1s) {
        %c1h = arith.constant 1 : index
        func.call @busy(%c1h) : (index) -> ()
      }
      air.wait_all [%h0, %h1]
    }
  }
  return
}
