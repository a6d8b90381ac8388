// Affinity is transitive: @a and @b share %g, @b and @c share %h, so all three
// use one partition in turn. But @a and @c share a concurrency token and must
// run at the same time on distinct partitions: impossible.
func.func @conflict() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    %g = air.token.alloc : !air.token
    %h = air.token.alloc : !air.token
    %co = air.token.alloc : !air.token
    %sa = air.segment @a async [affinity = [%g]] [concurrency = [%co]] {
      %c2 = arith.constant 2 : index
      air.herd @ha tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
    %sb = air.segment @b async [affinity = [%g, %h]] {
      %c2 = arith.constant 2 : index
      air.herd @hb tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
    %sc = air.segment @c async [affinity = [%h]] [concurrency = [%co]] {
      %c2 = arith.constant 2 : index
      air.herd @hc tile (%x, %y) in (%sx=%c2, %sy=%c2) {
      }
    }
  }
  return
}
