// A multi-token loop as mlir-air's runner tests write them: the host streams four
// 32-element rows through a channel pair, and the PE's scf.for carries two tokens
// (the compute chain and the put chain) across iterations, taking math.sqrt of
// each element in an air.execute between its get and its put.
// VERIFY: ok
// RUN: @sqrt_loop
air.channel @ChanIn [1, 1]
air.channel @ChanOut [1, 1]
func.func @sqrt_loop(%arg0: memref<4x32xf32>, %arg1: memref<4x32xf32>) {
  %c1 = arith.constant 1 : index
  %0 = air.launch async (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<4x32xf32>, memref<4x32xf32> {
    %c0 = arith.constant 0 : index
    %c1_0 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %1 = air.wait_all async
    %2 = scf.for %arg8 = %c0 to %c4 step %c1_0 iter_args(%arg9 = %1) -> (!air.token) {
      %7 = air.channel.put async [%arg9]  @ChanIn[] (%arg6[%arg8, %c0] [%c1_0, %c32] [%c32, %c1_0]) : (memref<4x32xf32>)
      scf.yield %7 : !air.token
    }
    %3 = scf.for %arg8 = %c0 to %c4 step %c1_0 iter_args(%arg9 = %1) -> (!air.token) {
      %7 = air.channel.get async [%arg9]  @ChanOut[] (%arg7[%arg8, %c0] [%c1_0, %c32] [%c32, %c1_0]) : (memref<4x32xf32>)
      scf.yield %7 : !air.token
    }
    %4 = air.segment @seg_0 async  {
      %c1_1 = arith.constant 1 : index
      %5 = air.herd @herd_0 async  tile (%arg8, %arg9) in (%arg10=%c1_1, %arg11=%c1_1) {
        %c0_2 = arith.constant 0 : index
        %c1_3 = arith.constant 1 : index
        %c4_4 = arith.constant 4 : index
        %c32_5 = arith.constant 32 : index
        %async_token, %results = air.execute -> (memref<32xf32, 2>) {
          %alloc = memref.alloc() : memref<32xf32, 2>
          air.execute_terminator %alloc : memref<32xf32, 2>
        }
        %6:2 = scf.for %arg12 = %c0_2 to %c4_4 step %c1_3 iter_args(%arg13 = %async_token, %arg14 = %async_token) -> (!air.token, !air.token) {
          %7 = air.channel.get async [%arg13, %arg14]  @ChanIn[] (%results[] [] []) : (memref<32xf32, 2>)
          %8 = air.execute [%7] {
            scf.for %arg15 = %c0_2 to %c32_5 step %c1_3 {
              %10 = memref.load %results[%arg15] : memref<32xf32, 2>
              %11 = math.sqrt %10 : f32
              memref.store %11, %results[%arg15] : memref<32xf32, 2>
            }
          }
          %9 = air.channel.put async [%8]  @ChanOut[] (%results[] [] []) : (memref<32xf32, 2>)
          scf.yield %8, %9 : !air.token, !air.token
        }
        %7 = air.execute [%6#1] {
          memref.dealloc %results : memref<32xf32, 2>
        }
      }
    }
    %6 = air.wait_all async [%2, %3, %4]
  }
  air.wait_all [%0]
  return
}
