// mlir-air's channel_broadcast runner pattern: the host puts one 16x8 block on a
// [1, 1] channel broadcast to a 4x1 herd (no put indices; each PE's get passes
// its own tile coordinates, which range over the broadcast_shape), every PE adds
// its column index and sends the tile back on its own channel index, and the
// segment gathers the four tiles into a 64x8 result.
// VERIFY: ok
// RUN: @channel_broadcast
#map = affine_map<()[s0] -> (s0 * 16)>
module {
  air.channel @ChanIn [1, 1] {broadcast_shape = [4, 1]}
  air.channel @ChanOut [4, 1]
  func.func @channel_broadcast(%arg0: memref<16x8xi32>, %arg1: memref<64x8xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<16x8xi32>, memref<64x8xi32> attributes {id = 1 : i32} {
      %1 = air.channel.put async  @ChanIn[] (%arg6[] [] []) {id = 2 : i32} : (memref<16x8xi32>)
      %2 = air.segment @segment_0 async  args(%arg8=%arg7) : memref<64x8xi32> attributes {id = 3 : i32} {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %c8 = arith.constant 8 : index
        %c16 = arith.constant 16 : index
        %3 = air.wait_all async
        %4 = scf.parallel (%arg9) = (%c0) to (%c4) step (%c1_0) init (%3) -> !air.token {
          %6 = affine.apply #map()[%arg9]
          %7 = air.channel.get async [%3]  @ChanOut[%arg9, %c0] (%arg8[%6, %c0] [%c16, %c8] [%c8, %c1_0]) {id = 4 : i32} : (memref<64x8xi32>)
          scf.reduce(%7 : !air.token) {
          ^bb0(%arg10: !air.token, %arg11: !air.token):
            %8 = air.wait_all async [%arg10, %arg11]
            scf.reduce.return %8 : !air.token
          }
        }
        %5 = air.herd @herd_0 async  tile (%arg9, %arg10) in (%arg11=%c4, %arg12=%c1_0) attributes {id = 5 : i32} {
          %c0_1 = arith.constant 0 : index
          %c1_2 = arith.constant 1 : index
          %c8_3 = arith.constant 8 : index
          %c16_4 = arith.constant 16 : index
          %async_token, %results = air.execute -> (memref<16x8xi32, 2>) {
            %alloc = memref.alloc() : memref<16x8xi32, 2>
            air.execute_terminator %alloc : memref<16x8xi32, 2>
          }
          %6 = air.channel.get async [%async_token]  @ChanIn[%arg9, %arg10] (%results[] [] []) {id = 6 : i32} : (memref<16x8xi32, 2>)
          %7 = air.execute [%6] {
            %12 = arith.index_cast %arg9 : index to i32
            scf.for %arg13 = %c0_1 to %c16_4 step %c1_2 {
              scf.for %arg14 = %c0_1 to %c8_3 step %c1_2 {
                %10 = memref.load %results[%arg13, %arg14] : memref<16x8xi32, 2>
                %11 = arith.addi %10, %12 : i32
                memref.store %11, %results[%arg13, %arg14] : memref<16x8xi32, 2>
              }
            }
          }
          %8 = air.channel.put async [%7]  @ChanOut[%arg9, %arg10] (%results[] [] []) {id = 7 : i32} : (memref<16x8xi32, 2>)
          %9 = air.execute [%8] {
            memref.dealloc %results : memref<16x8xi32, 2>
          }
        }
        %10 = air.wait_all async [%4, %5]
      }
      %11 = air.wait_all async [%1, %2]
    }
    air.wait_all [%0]
    return
  }
}
