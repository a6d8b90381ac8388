// scf.parallel with init/reduce of tokens: the segment fans an L2 buffer out to a
// 2x2 herd (one put per tile, reduced to one token), the herd scales its tile
// with an scf.parallel without init, and the segment gathers the tiles back.
#map = affine_map<()[s0] -> (s0 * 16)>
module {
  air.channel @to_tiles [2, 2]
  air.channel @from_tiles [2, 2]
  air.channel @l3_in [1, 1]
  air.channel @l3_out [1, 1]
  func.func @scale(%arg0: memref<32x32xf32>, %arg1: memref<32x32xf32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg2) in (%arg3=%c1) args(%arg4=%arg0, %arg5=%arg1) : memref<32x32xf32>, memref<32x32xf32> {
      %1 = air.channel.put async  @l3_in[] (%arg4[] [] []) : (memref<32x32xf32>)
      %2 = air.channel.get async  @l3_out[] (%arg5[] [] []) : (memref<32x32xf32>)
      %3 = air.segment @seg async  {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c16 = arith.constant 16 : index
        %c32 = arith.constant 32 : index
        %async_token, %results = air.execute -> (memref<32x32xf32, 1>) {
          %alloc = memref.alloc() : memref<32x32xf32, 1>
          air.execute_terminator %alloc : memref<32x32xf32, 1>
        }
        %5 = air.channel.get async [%async_token]  @l3_in[] (%results[] [] []) : (memref<32x32xf32, 1>)
        %6 = scf.parallel (%arg6, %arg7) = (%c0, %c0) to (%c2, %c2) step (%c1_0, %c1_0) init (%5) -> !air.token {
          %11 = affine.apply #map()[%arg6]
          %12 = affine.apply #map()[%arg7]
          %13 = air.channel.put async [%5]  @to_tiles[%arg6, %arg7] (%results[%11, %12] [%c16, %c16] [%c32, %c1_0]) : (memref<32x32xf32, 1>)
          scf.reduce(%13 : !air.token) {
          ^bb0(%arg8: !air.token, %arg9: !air.token):
            %14 = air.wait_all async [%arg8, %arg9] 
            scf.reduce.return %14 : !air.token
          }
        }
        %7 = air.herd @herd_0 async  tile (%arg6, %arg7) in (%arg8=%c2, %arg9=%c2) {
          %c0_1 = arith.constant 0 : index
          %c1_2 = arith.constant 1 : index
          %c16_3 = arith.constant 16 : index
          %cst = arith.constant 2.000000e+00 : f32
          %async_token_4, %results_5 = air.execute -> (memref<16x16xf32, 2>) {
            %alloc = memref.alloc() : memref<16x16xf32, 2>
            air.execute_terminator %alloc : memref<16x16xf32, 2>
          }
          %11 = air.channel.get async [%async_token_4]  @to_tiles[%arg6, %arg7] (%results_5[] [] []) : (memref<16x16xf32, 2>)
          %12 = air.execute [%11] {
            scf.parallel (%arg10, %arg11) = (%c0_1, %c0_1) to (%c16_3, %c16_3) step (%c1_2, %c1_2) {
              %15 = memref.load %results_5[%arg10, %arg11] : memref<16x16xf32, 2>
              %16 = arith.mulf %15, %cst : f32
              memref.store %16, %results_5[%arg10, %arg11] : memref<16x16xf32, 2>
              scf.reduce 
            }
          }
          %13 = air.channel.put async [%12]  @from_tiles[%arg6, %arg7] (%results_5[] [] []) : (memref<16x16xf32, 2>)
          %14 = air.execute [%13] {
            memref.dealloc %results_5 : memref<16x16xf32, 2>
          }
        }
        %8 = scf.parallel (%arg6, %arg7) = (%c0, %c0) to (%c2, %c2) step (%c1_0, %c1_0) init (%6) -> !air.token {
          %11 = affine.apply #map()[%arg6]
          %12 = affine.apply #map()[%arg7]
          %13 = air.channel.get async [%6]  @from_tiles[%arg6, %arg7] (%results[%11, %12] [%c16, %c16] [%c32, %c1_0]) : (memref<32x32xf32, 1>)
          scf.reduce(%13 : !air.token) {
          ^bb0(%arg8: !air.token, %arg9: !air.token):
            %14 = air.wait_all async [%arg8, %arg9] 
            scf.reduce.return %14 : !air.token
          }
        }
        %9 = air.channel.put async [%8]  @l3_out[] (%results[] [] []) : (memref<32x32xf32, 1>)
        %10 = air.execute [%9, %7] {
          memref.dealloc %results : memref<32x32xf32, 1>
        }
      }
      %4 = air.wait_all async [%1, %2, %3] 
    }
    air.wait_all [%0]
    return
  }
}
