air.channel @to_tile [2, 2]
air.channel @from_tile [2, 2]
func.func private @scale_tile(memref<64x64xf32, 2>)
func.func @scale(%in: memref<128x128xf32>, %out: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = air.launch async (%lx, %ly) in (%nx=%c1, %ny=%c1)
      args(%a=%in, %b=%out) : memref<128x128xf32>, memref<128x128xf32> {
    %c0 = arith.constant 0 : index
    %c1_0 = arith.constant 1 : index
    %c2_0 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %t0 = air.wait_all async
    %p = scf.parallel (%i, %j) = (%c0, %c0) to (%c2_0, %c2_0) step (%c1_0, %c1_0)
        init (%t0) -> !air.token {
      %oi = arith.muli %i, %c64 : index
      %oj = arith.muli %j, %c64 : index
      %put = air.channel.put async [%t0] @to_tile[%i, %j] (%a[%oi, %oj] [%c64, %c64] [%c128, %c1_0]) : (memref<128x128xf32>)
      scf.reduce(%put : !air.token) {
      ^bb0(%x: !air.token, %y: !air.token):
        %m = air.wait_all async [%x, %y]
        scf.reduce.return %m : !air.token
      }
    }
    %q = scf.parallel (%i, %j) = (%c0, %c0) to (%c2_0, %c2_0) step (%c1_0, %c1_0)
        init (%t0) -> !air.token {
      %oi = arith.muli %i, %c64 : index
      %oj = arith.muli %j, %c64 : index
      %get = air.channel.get async [%t0] @from_tile[%i, %j] (%b[%oi, %oj] [%c64, %c64] [%c128, %c1_0]) : (memref<128x128xf32>)
      scf.reduce(%get : !air.token) {
      ^bb0(%x: !air.token, %y: !air.token):
        %m = air.wait_all async [%x, %y]
        scf.reduce.return %m : !air.token
      }
    }
    %s = air.segment @seg async {
      %c2_1 = arith.constant 2 : index
      %h = air.herd @h async tile (%x, %y) in (%sx=%c2_1, %sy=%c2_1) {
        %t1, %buf = air.execute -> (memref<64x64xf32, 2>) {
          %m = memref.alloc() : memref<64x64xf32, 2>
          air.execute_terminator %m : memref<64x64xf32, 2>
        }
        %g = air.channel.get async [%t1] @to_tile[%x, %y] (%buf[] [] []) : (memref<64x64xf32, 2>)
        %k = air.execute [%g] {
          func.call @scale_tile(%buf) : (memref<64x64xf32, 2>) -> ()
        }
        %o = air.channel.put async [%k] @from_tile[%x, %y] (%buf[] [] []) : (memref<64x64xf32, 2>)
        %d = air.execute [%o] {
          memref.dealloc %buf : memref<64x64xf32, 2>
        }
      }
    }
  }
  air.wait_all [%t]
  return
}
