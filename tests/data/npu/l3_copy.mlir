// L3 -> L2 -> L3 through two launch-level channels: the launch streams %arg0 to
// the segment in two 128-element halves and reads the result back into %arg1.
module {
  air.channel @to_seg [1, 1]
  air.channel @from_seg [1, 1]
  func.func @copy(%arg0: memref<256xi32>, %arg1: memref<256xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%x) in (%nx=%c1) args(%a=%arg0, %b=%arg1) : memref<256xi32>, memref<256xi32> {
      %c0 = arith.constant 0 : index
      %c1_0 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %t0 = air.wait_all async
      %1 = scf.for %i = %c0 to %c256 step %c128 iter_args(%t = %t0) -> (!air.token) {
        %p = air.channel.put async [%t] @to_seg[] (%a[%i] [%c128] [%c1_0]) : (memref<256xi32>)
        scf.yield %p : !air.token
      }
      %2 = air.channel.get async @from_seg[] (%b[] [] []) : (memref<256xi32>)
      %3 = air.segment @seg async {
        %c0_s = arith.constant 0 : index
        %c1_s = arith.constant 1 : index
        %c128_s = arith.constant 128 : index
        %c256_s = arith.constant 256 : index
        %async_token, %buf = air.execute -> (memref<256xi32, 1>) {
          %alloc = memref.alloc() : memref<256xi32, 1>
          air.execute_terminator %alloc : memref<256xi32, 1>
        }
        %4 = scf.for %j = %c0_s to %c256_s step %c128_s iter_args(%t = %async_token) -> (!air.token) {
          %g = air.channel.get async [%t] @to_seg[] (%buf[%j] [%c128_s] [%c1_s]) : (memref<256xi32, 1>)
          scf.yield %g : !air.token
        }
        %5 = air.channel.put async [%4] @from_seg[] (%buf[] [] []) : (memref<256xi32, 1>)
        %6 = air.execute [%5] {
          memref.dealloc %buf : memref<256xi32, 1>
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
