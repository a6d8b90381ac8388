// expect-ok
// Old scf.parallel bodies: one scf.reduce per value, then an explicit scf.yield.
// They merge into one scf.reduce that ends the body.
func.func @two(%t0: !air.async.token, %t1: !air.async.token) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%t0, %t1) -> (!air.async.token, !air.async.token) {
    %a = air.wait_all async [%t0]
    %b = air.wait_all async [%t1]
    scf.reduce(%a)  : !air.async.token {
    ^bb0(%x: !air.async.token, %y: !air.async.token):
      %m = air.wait_all async [%x, %y]
      scf.reduce.return %m : !air.async.token
    }
    scf.reduce(%b)  : !air.async.token {
    ^bb0(%x: !air.async.token, %y: !air.async.token):
      %m = air.wait_all async [%x, %y]
      scf.reduce.return %m : !air.async.token
    }
    scf.yield
  }
  return
}
