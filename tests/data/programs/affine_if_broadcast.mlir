// A weight vector broadcast from L2 to every tile of a 1x4 herd through a channel
// with broadcast_shape; tiles pick their initialisation with affine.if on their
// tile ids (#set on symbols, #set1 on dimensions).
#map = affine_map<()[s0] -> (s0 * 64)>
#set = affine_set<()[s0, s1] : (s0 == 0, s1 == 0)>
#set1 = affine_set<(d0, d1) : (d0 >= 0, -d1 + 1 >= 0)>
module {
  air.channel @weights [1, 1] {broadcast_shape = [1, 4]}
  air.channel @act [1, 4]
  air.channel @res [1, 4]
  air.channel @l3_w [1, 1]
  air.channel @l3_act [1, 1]
  air.channel @l3_res [1, 1]
  func.func @bcast(%arg0: memref<64xi32>, %arg1: memref<256xi32>, %arg2: memref<256xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg3) in (%arg4=%c1) args(%arg5=%arg0, %arg6=%arg1, %arg7=%arg2) : memref<64xi32>, memref<256xi32>, memref<256xi32> {
      %1 = air.channel.put async  @l3_w[] (%arg5[] [] []) : (memref<64xi32>)
      %2 = air.channel.put async  @l3_act[] (%arg6[] [] []) : (memref<256xi32>)
      %3 = air.channel.get async  @l3_res[] (%arg7[] [] []) : (memref<256xi32>)
      %4 = air.segment @bcast_seg async  {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %c64 = arith.constant 64 : index
        %async_token, %results = air.execute -> (memref<64xi32, 1>) {
          %alloc = memref.alloc() : memref<64xi32, 1>
          air.execute_terminator %alloc : memref<64xi32, 1>
        }
        %async_token_1, %results_2 = air.execute -> (memref<256xi32, 1>) {
          %alloc = memref.alloc() : memref<256xi32, 1>
          air.execute_terminator %alloc : memref<256xi32, 1>
        }
        %6 = air.channel.get async [%async_token]  @l3_w[] (%results[] [] []) : (memref<64xi32, 1>)
        %7 = air.channel.get async [%async_token_1]  @l3_act[] (%results_2[] [] []) : (memref<256xi32, 1>)
        %8 = air.channel.put async [%6]  @weights[%c0, %c0] (%results[] [] []) : (memref<64xi32, 1>)
        %9 = scf.parallel (%arg8) = (%c0) to (%c4) step (%c1_0) init (%7) -> !air.token {
          %14 = affine.apply #map()[%arg8]
          %15 = air.channel.put async [%7]  @act[%c0, %arg8] (%results_2[%14] [%c64] [%c1_0]) : (memref<256xi32, 1>)
          scf.reduce(%15 : !air.token) {
          ^bb0(%arg9: !air.token, %arg10: !air.token):
            %16 = air.wait_all async [%arg9, %arg10] 
            scf.reduce.return %16 : !air.token
          }
        }
        %10 = air.herd @herd_0 async  tile (%arg8, %arg9) in (%arg10=%c1_0, %arg11=%c4) {
          %c0_3 = arith.constant 0 : index
          %c1_4 = arith.constant 1 : index
          %c64_5 = arith.constant 64 : index
          %c0_i32 = arith.constant 0 : i32
          %c1_i32 = arith.constant 1 : i32
          %async_token_6, %results_7 = air.execute -> (memref<64xi32, 2>) {
            %alloc = memref.alloc() : memref<64xi32, 2>
            air.execute_terminator %alloc : memref<64xi32, 2>
          }
          %async_token_8, %results_9 = air.execute -> (memref<64xi32, 2>) {
            %alloc = memref.alloc() : memref<64xi32, 2>
            air.execute_terminator %alloc : memref<64xi32, 2>
          }
          %async_token_10, %results_11 = air.execute -> (memref<64xi32, 2>) {
            %alloc = memref.alloc() : memref<64xi32, 2>
            air.execute_terminator %alloc : memref<64xi32, 2>
          }
          %14 = air.channel.get async [%async_token_6]  @weights[%arg8, %arg9] (%results_7[] [] []) : (memref<64xi32, 2>)
          %15 = air.channel.get async [%async_token_8]  @act[%arg8, %arg9] (%results_9[] [] []) : (memref<64xi32, 2>)
          %16 = affine.if #set()[%arg8, %arg9] -> !air.token {
            %22 = air.execute [%async_token_10] {
              linalg.fill ins(%c1_i32 : i32) outs(%results_11 : memref<64xi32, 2>)
            }
            affine.yield %22 : !air.token
          } else {
            %22 = air.execute [%async_token_10] {
              linalg.fill ins(%c0_i32 : i32) outs(%results_11 : memref<64xi32, 2>)
            }
            affine.yield %22 : !air.token
          }
          %17 = affine.if #set1(%arg8, %arg9) -> !air.token {
            %22 = air.wait_all async [%16] 
            affine.yield %22 : !air.token
          } else {
            affine.yield %16 : !air.token
          }
          %18 = air.execute [%14, %15, %17] {
            scf.for %arg12 = %c0_3 to %c64_5 step %c1_4 {
              %22 = memref.load %results_7[%arg12] : memref<64xi32, 2>
              %23 = memref.load %results_9[%arg12] : memref<64xi32, 2>
              %24 = memref.load %results_11[%arg12] : memref<64xi32, 2>
              %25 = arith.muli %22, %23 : i32
              %26 = arith.addi %24, %25 : i32
              memref.store %26, %results_11[%arg12] : memref<64xi32, 2>
            }
          }
          %19 = air.channel.put async [%18]  @res[%arg8, %arg9] (%results_11[] [] []) : (memref<64xi32, 2>)
          %20 = air.execute [%18] {
            memref.dealloc %results_7 : memref<64xi32, 2>
            memref.dealloc %results_9 : memref<64xi32, 2>
          }
          %21 = air.execute [%19] {
            memref.dealloc %results_11 : memref<64xi32, 2>
          }
        }
        %11 = scf.parallel (%arg8) = (%c0) to (%c4) step (%c1_0) init (%7) -> !air.token {
          %14 = affine.apply #map()[%arg8]
          %15 = air.channel.get async [%7]  @res[%c0, %arg8] (%results_2[%14] [%c64] [%c1_0]) : (memref<256xi32, 1>)
          scf.reduce(%15 : !air.token) {
          ^bb0(%arg9: !air.token, %arg10: !air.token):
            %16 = air.wait_all async [%arg9, %arg10] 
            scf.reduce.return %16 : !air.token
          }
        }
        %12 = air.channel.put async [%11, %9]  @l3_res[] (%results_2[] [] []) : (memref<256xi32, 1>)
        %13 = air.execute [%12, %8, %10] {
          memref.dealloc %results : memref<64xi32, 1>
          memref.dealloc %results_2 : memref<256xi32, 1>
        }
      }
      %5 = air.wait_all async [%1, %2, %3, %4] 
    }
    air.wait_all [%0]
    return
  }
}
