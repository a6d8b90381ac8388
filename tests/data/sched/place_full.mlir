// @big takes all of npu1; @small must be co-resident with it (concurrency) and
// finds no free partition. Each segment alone fits.
func.func @full() {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) {
    %co = air.token.alloc : !air.token
    %sb = air.segment @big async [concurrency = [%co]] {
      %c4 = arith.constant 4 : index
      air.herd @hbig tile (%x, %y) in (%sx=%c4, %sy=%c4) {
      }
    }
    %ss = air.segment @small async [concurrency = [%co]] {
      %c1s = arith.constant 1 : index
      air.herd @hsmall tile (%x) in (%sx=%c1s) {
      }
    }
  }
  return
}
