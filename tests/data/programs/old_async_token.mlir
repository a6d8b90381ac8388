// Older mlir-air output: !air.async.token, explicit air.*_terminator ops,
// explicit scf.yield, `1 : i32` memory spaces, and scf.reduce in its old form
// (`scf.reduce(%x) : T { ^bb0 ... }` followed by `scf.yield`).
#map = affine_map<()[s0] -> (s0 * 32)>
module {
  air.channel @channel_0 [2, 2]
  func.func @old_style(%arg0: memref<64x64xi32>, %arg1: memref<64x64xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<64x64xi32>, memref<64x64xi32> attributes {id = 3 : i32} {
      %1 = air.segment async  args(%arg8=%arg6, %arg9=%arg7) : memref<64x64xi32>, memref<64x64xi32> attributes {id = 2 : i32} {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c32 = arith.constant 32 : index
        %c64 = arith.constant 64 : index
        %asyncToken, %valOut = air.execute -> (memref<64x64xi32, 1 : i32>) {
          %alloc = memref.alloc() : memref<64x64xi32, 1 : i32>
          air.execute_terminator %alloc : memref<64x64xi32, 1 : i32>
        } {id = 1 : i32}
        %2 = air.dma_memcpy_nd async [%asyncToken] (%valOut[] [] [], %arg8[] [] []) {id = 1 : i32} : (memref<64x64xi32, 1 : i32>, memref<64x64xi32>)
        %3 = scf.parallel (%arg10, %arg11) = (%c0, %c0) to (%c2, %c2) step (%c1_0, %c1_0) init (%2) -> !air.async.token {
          %6 = affine.apply #map()[%arg10]
          %7 = affine.apply #map()[%arg11]
          %8 = air.channel.put async [%2]  @channel_0[%arg10, %arg11] (%valOut[%6, %7] [%c32, %c32] [%c64, %c1_0]) {id = 2 : i32} : (memref<64x64xi32, 1 : i32>)
          scf.reduce(%8)  : !air.async.token {
          ^bb0(%arg12: !air.async.token, %arg13: !air.async.token):
            %9 = air.wait_all async [%arg12, %arg13] 
            scf.reduce.return %9 : !air.async.token
          }
          scf.yield
        }
        %4 = air.herd @herd_0 async [%2]  tile (%arg10, %arg11) in (%arg12=%c2, %arg13=%c2) attributes {id = 1 : i32} {
          %c0_1 = arith.constant 0 : index
          %c1_2 = arith.constant 1 : index
          %c32_3 = arith.constant 32 : index
          %asyncToken_4, %valOut_5 = air.execute -> (memref<32x32xi32, 2 : i32>) {
            %alloc = memref.alloc() : memref<32x32xi32, 2 : i32>
            air.execute_terminator %alloc : memref<32x32xi32, 2 : i32>
          } {id = 2 : i32}
          %6 = air.channel.get async [%asyncToken_4]  @channel_0[%arg10, %arg11] (%valOut_5[] [] []) {id = 3 : i32} : (memref<32x32xi32, 2 : i32>)
          %7 = scf.for %arg14 = %c0_1 to %c32_3 step %c1_2 iter_args(%arg15 = %6) -> (!air.async.token) {
            %9 = air.execute [%arg15] {
              %10 = memref.load %valOut_5[%arg14, %arg14] : memref<32x32xi32, 2 : i32>
              %11 = arith.addi %10, %10 : i32
              memref.store %11, %valOut_5[%arg14, %arg14] : memref<32x32xi32, 2 : i32>
              air.execute_terminator
            } {id = 3 : i32}
            scf.yield %9 : !air.async.token
          }
          %8 = air.execute [%7] {
            memref.dealloc %valOut_5 : memref<32x32xi32, 2 : i32>
            air.execute_terminator
          } {id = 4 : i32}
          air.herd_terminator
        }
        %5 = air.execute [%3, %4] {
          memref.dealloc %valOut : memref<64x64xi32, 1 : i32>
          air.execute_terminator
        } {id = 5 : i32}
        air.segment_terminator
      }
      air.launch_terminator
    }
    return
  }
}
