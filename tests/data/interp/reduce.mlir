// scf.parallel reductions in host code: the f32 sum of a vector (arith.addf,
// folded in instance order) and the maximum of i*j - 3i over an 8x8 space.
func.func @reduce(%in: memref<64xf32>, %out: memref<1xf32>, %iout: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %low = arith.constant -1000 : index
  %s = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%zero) -> f32 {
    %v = memref.load %in[%i] : memref<64xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      scf.reduce.return %r : f32
    }
  }
  memref.store %s, %out[%c0] : memref<1xf32>
  %m = scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) init (%low) -> index {
    %p = arith.muli %i, %j : index
    %t = arith.muli %i, %c3 : index
    %d = arith.subi %p, %t : index
    scf.reduce(%d : index) {
    ^bb0(%a: index, %b: index):
      %r = arith.maxsi %a, %b : index
      scf.reduce.return %r : index
    }
  }
  memref.store %m, %iout[%c0] : memref<1xindex>
  return
}
// The init token of an scf.parallel is a broadcast dependency (spec 2.2): no
// instance runs its kernel before the air.execute producing it has finished.
func.func private @set_flag()
func.func private @check_flag(index)
func.func @init_wait() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = air.execute {
    func.call @set_flag() : () -> ()
  }
  %p = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%t) -> !air.token {
    func.call @check_flag(%i) : (index) -> ()
    %w = air.wait_all async
    scf.reduce(%w : !air.token) {
    ^bb0(%a: !air.token, %b: !air.token):
      %m = air.wait_all async [%a, %b]
      scf.reduce.return %m : !air.token
    }
  }
  air.wait_all [%p]
  return
}
