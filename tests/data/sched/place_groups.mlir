// @a and @b share an affinity token: one partition, used in turn. @c and @d
// share a concurrency token: distinct partitions, both resident.
func.func @groups() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    %g = air.token.alloc : !air.token
    %co = air.token.alloc : !air.token
    air.segment @a [affinity = [%g]] {
      %c2 = arith.constant 2 : index
      air.herd @ha tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
    air.segment @b [affinity = [%g]] {
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      air.herd @hb tile (%x, %y) in (%sx=%c1s, %sy=%c2) {
      }
    }
    %sc = air.segment @c async [concurrency = [%co]] {
      %c2 = arith.constant 2 : index
      air.herd @hc tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
    %sd = air.segment @d async [concurrency = [%co]] {
      %c2 = arith.constant 2 : index
      air.herd @hd tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
  }
  return
}
