// C[128x128] += A[128x128] * B[128x128] on a 4x4 herd, written the way mlir-air
// prints it after air-dependency and air-to-channel: L3 -> L2 over @channel_0/1,
// L2 -> L1 over the 4x4 channels @channel_3/4, results back over @channel_5 and
// @channel_2. The herd's k loop is double buffered through two iter_args.
#map = affine_map<()[s0] -> (s0 * 32)>
module {
  air.channel @channel_0 [1, 1]
  air.channel @channel_1 [1, 1]
  air.channel @channel_2 [1, 1]
  air.channel @channel_3 [4, 4] {depth = 2 : i64}
  air.channel @channel_4 [4, 4] {depth = 2 : i64}
  air.channel @channel_5 [4, 4]
  func.func @matmul_128(%arg0: memref<128x128xf32>, %arg1: memref<128x128xf32>, %arg2: memref<128x128xf32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg3, %arg4) in (%arg5=%c1, %arg6=%c1) args(%arg7=%arg0, %arg8=%arg1, %arg9=%arg2) : memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32> attributes {id = 1 : i32} {
      %1 = air.channel.put async  @channel_0[] (%arg7[] [] []) {id = 1 : i32} : (memref<128x128xf32>)
      %2 = air.channel.put async  @channel_1[] (%arg8[] [] []) {id = 2 : i32} : (memref<128x128xf32>)
      %3 = air.channel.get async  @channel_2[] (%arg9[] [] []) {id = 3 : i32} : (memref<128x128xf32>)
      %4 = air.segment @segment_0 async  attributes {id = 2 : i32} {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %c32 = arith.constant 32 : index
        %c128 = arith.constant 128 : index
        %async_token, %results = air.execute -> (memref<128x128xf32, 1>) {
          %alloc = memref.alloc() : memref<128x128xf32, 1>
          air.execute_terminator %alloc : memref<128x128xf32, 1>
        } {id = 1 : i32}
        %async_token_1, %results_2 = air.execute -> (memref<128x128xf32, 1>) {
          %alloc = memref.alloc() : memref<128x128xf32, 1>
          air.execute_terminator %alloc : memref<128x128xf32, 1>
        } {id = 2 : i32}
        %async_token_3, %results_4 = air.execute -> (memref<128x128xf32, 1>) {
          %alloc = memref.alloc() : memref<128x128xf32, 1>
          air.execute_terminator %alloc : memref<128x128xf32, 1>
        } {id = 3 : i32}
        %6 = air.channel.get async [%async_token]  @channel_0[] (%results[] [] []) {id = 4 : i32} : (memref<128x128xf32, 1>)
        %7 = air.channel.get async [%async_token_1]  @channel_1[] (%results_2[] [] []) {id = 5 : i32} : (memref<128x128xf32, 1>)
        %8 = air.wait_all async [%6, %7] 
        %9 = scf.for %arg10 = %c0 to %c128 step %c32 iter_args(%arg11 = %8) -> (!air.token) {
          %14 = scf.parallel (%arg12, %arg13) = (%c0, %c0) to (%c4, %c4) step (%c1_0, %c1_0) init (%arg11) -> !air.token {
            %15 = affine.apply #map()[%arg12]
            %16 = air.channel.put async [%arg11]  @channel_3[%arg12, %arg13] (%results[%15, %arg10] [%c32, %c32] [%c128, %c1_0]) {id = 6 : i32} : (memref<128x128xf32, 1>)
            %17 = affine.apply #map()[%arg13]
            %18 = air.channel.put async [%arg11]  @channel_4[%arg12, %arg13] (%results_2[%arg10, %17] [%c32, %c32] [%c128, %c1_0]) {id = 7 : i32} : (memref<128x128xf32, 1>)
            %19 = air.wait_all async [%16, %18] 
            scf.reduce(%19 : !air.token) {
            ^bb0(%arg14: !air.token, %arg15: !air.token):
              %20 = air.wait_all async [%arg14, %arg15] 
              scf.reduce.return %20 : !air.token
            }
          }
          scf.yield %14 : !air.token
        }
        %10 = air.herd @herd_0 async [%async_token_3]  tile (%arg10, %arg11) in (%arg12=%c4, %arg13=%c4) attributes {id = 3 : i32} {
          %c0_7 = arith.constant 0 : index
          %c64 = arith.constant 64 : index
          %c128_8 = arith.constant 128 : index
          %cst = arith.constant 0.000000e+00 : f32
          %async_token_9, %results_10 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          } {id = 4 : i32}
          %async_token_11, %results_12 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          } {id = 5 : i32}
          %async_token_13, %results_14 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          } {id = 6 : i32}
          %async_token_15, %results_16 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          } {id = 7 : i32}
          %async_token_17, %results_18 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          } {id = 8 : i32}
          %15 = air.execute [%async_token_9] {
            linalg.fill ins(%cst : f32) outs(%results_10 : memref<32x32xf32, 2>)
          } {id = 9 : i32}
          %16 = air.wait_all async [%15, %async_token_11, %async_token_13, %async_token_15, %async_token_17] 
          %17:2 = scf.for %arg14 = %c0_7 to %c128_8 step %c64 iter_args(%arg15 = %16, %arg16 = %16) -> (!air.token, !air.token) {
            %22 = air.channel.get async [%arg15]  @channel_3[%arg10, %arg11] (%results_12[] [] []) {id = 8 : i32} : (memref<32x32xf32, 2>)
            %23 = air.channel.get async [%arg15]  @channel_4[%arg10, %arg11] (%results_14[] [] []) {id = 9 : i32} : (memref<32x32xf32, 2>)
            %24 = air.execute [%22, %23, %arg16] {
              linalg.matmul ins(%results_12, %results_14 : memref<32x32xf32, 2>, memref<32x32xf32, 2>) outs(%results_10 : memref<32x32xf32, 2>)
            } {id = 10 : i32}
            %25 = air.channel.get async [%arg16, %22]  @channel_3[%arg10, %arg11] (%results_16[] [] []) {id = 10 : i32} : (memref<32x32xf32, 2>)
            %26 = air.channel.get async [%arg16, %23]  @channel_4[%arg10, %arg11] (%results_18[] [] []) {id = 11 : i32} : (memref<32x32xf32, 2>)
            %27 = air.execute [%25, %26, %24] {
              linalg.matmul ins(%results_16, %results_18 : memref<32x32xf32, 2>, memref<32x32xf32, 2>) outs(%results_10 : memref<32x32xf32, 2>)
            } {id = 11 : i32}
            scf.yield %24, %27 : !air.token, !air.token
          }
          %18 = air.channel.put async [%17#1]  @channel_5[%arg10, %arg11] (%results_10[] [] []) {id = 12 : i32} : (memref<32x32xf32, 2>)
          %19 = air.execute [%17#0, %17#1] {
            memref.dealloc %results_12 : memref<32x32xf32, 2>
            memref.dealloc %results_14 : memref<32x32xf32, 2>
            memref.dealloc %results_16 : memref<32x32xf32, 2>
            memref.dealloc %results_18 : memref<32x32xf32, 2>
          } {id = 12 : i32}
          %20 = air.execute [%18] {
            memref.dealloc %results_10 : memref<32x32xf32, 2>
          } {id = 13 : i32}
        }
        %11 = scf.parallel (%arg10, %arg11) = (%c0, %c0) to (%c4, %c4) step (%c1_0, %c1_0) init (%async_token_3) -> !air.token {
          %15 = affine.apply #map()[%arg10]
          %16 = affine.apply #map()[%arg11]
          %17 = air.channel.get async [%async_token_3]  @channel_5[%arg10, %arg11] (%results_4[%15, %16] [%c32, %c32] [%c128, %c1_0]) {id = 13 : i32} : (memref<128x128xf32, 1>)
          scf.reduce(%17 : !air.token) {
          ^bb0(%arg12: !air.token, %arg13: !air.token):
            %18 = air.wait_all async [%arg12, %arg13] 
            scf.reduce.return %18 : !air.token
          }
        }
        %12 = air.channel.put async [%11]  @channel_2[] (%results_4[] [] []) {id = 14 : i32} : (memref<128x128xf32, 1>)
        %13 = air.execute [%12, %9, %10] {
          memref.dealloc %results : memref<128x128xf32, 1>
          memref.dealloc %results_2 : memref<128x128xf32, 1>
          memref.dealloc %results_4 : memref<128x128xf32, 1>
        } {id = 14 : i32}
      }
      %5 = air.wait_all async [%1, %2, %3, %4] 
    }
    air.wait_all [%0]
    return
  }
}
