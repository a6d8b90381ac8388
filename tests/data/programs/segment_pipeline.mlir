// Two segments in one launch form a pipeline: @producer moves four 1 KiB chunks
// from L3 into L2 and forwards them over @pipe; @consumer receives each chunk,
// has its herd negate it, and streams the result back to L3. Both segments are
// co-resident (same launch), so the channels connect concurrently running code.
module {
  air.channel @l3_in [1, 1]
  air.channel @pipe [1, 1] {depth = 2 : i64}
  air.channel @to_herd [1, 1]
  air.channel @from_herd [1, 1]
  air.channel @l3_out [1, 1]
  func.func @pipeline(%arg0: memref<1024xf32>, %arg1: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg2) in (%arg3=%c1) args(%arg4=%arg0, %arg5=%arg1) : memref<1024xf32>, memref<1024xf32> {
      %c0 = arith.constant 0 : index
      %c1_0 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %c1024 = arith.constant 1024 : index
      %1 = air.wait_all async 
      %2 = scf.for %arg6 = %c0 to %c1024 step %c256 iter_args(%arg7 = %1) -> (!air.token) {
        %7 = air.channel.put async [%arg7]  @l3_in[] (%arg4[%arg6] [%c256] [%c1_0]) : (memref<1024xf32>)
        scf.yield %7 : !air.token
      }
      %3 = scf.for %arg6 = %c0 to %c1024 step %c256 iter_args(%arg7 = %1) -> (!air.token) {
        %7 = air.channel.get async [%arg7]  @l3_out[] (%arg5[%arg6] [%c256] [%c1_0]) : (memref<1024xf32>)
        scf.yield %7 : !air.token
      }
      %4 = air.segment @producer async  {
        %c0_1 = arith.constant 0 : index
        %c4 = arith.constant 4 : index
        %c1_2 = arith.constant 1 : index
        %async_token, %results = air.execute -> (memref<256xf32, 1>) {
          %alloc = memref.alloc() : memref<256xf32, 1>
          air.execute_terminator %alloc : memref<256xf32, 1>
        }
        %7 = scf.for %arg6 = %c0_1 to %c4 step %c1_2 iter_args(%arg7 = %async_token) -> (!air.token) {
          %9 = air.channel.get async [%arg7]  @l3_in[] (%results[] [] []) : (memref<256xf32, 1>)
          %10 = air.channel.put async [%9]  @pipe[] (%results[] [] []) : (memref<256xf32, 1>)
          scf.yield %10 : !air.token
        }
        %8 = air.execute [%7] {
          memref.dealloc %results : memref<256xf32, 1>
        }
      }
      %5 = air.segment @consumer async  {
        %c0_1 = arith.constant 0 : index
        %c4 = arith.constant 4 : index
        %c1_2 = arith.constant 1 : index
        %async_token, %results = air.execute -> (memref<256xf32, 1>) {
          %alloc = memref.alloc() : memref<256xf32, 1>
          air.execute_terminator %alloc : memref<256xf32, 1>
        }
        %7 = scf.for %arg6 = %c0_1 to %c4 step %c1_2 iter_args(%arg7 = %async_token) -> (!air.token) {
          %10 = air.channel.get async [%arg7]  @pipe[] (%results[] [] []) : (memref<256xf32, 1>)
          %11 = air.channel.put async [%10]  @to_herd[] (%results[] [] []) : (memref<256xf32, 1>)
          %12 = air.channel.get async [%11]  @from_herd[] (%results[] [] []) : (memref<256xf32, 1>)
          %13 = air.channel.put async [%12]  @l3_out[] (%results[] [] []) : (memref<256xf32, 1>)
          scf.yield %13 : !air.token
        }
        %8 = air.herd @negate async  tile (%arg6, %arg7) in (%arg8=%c1_2, %arg9=%c1_2) {
          %c0_3 = arith.constant 0 : index
          %c1_4 = arith.constant 1 : index
          %c4_5 = arith.constant 4 : index
          %c256_6 = arith.constant 256 : index
          %async_token_7, %results_8 = air.execute -> (memref<256xf32, 2>) {
            %alloc = memref.alloc() : memref<256xf32, 2>
            air.execute_terminator %alloc : memref<256xf32, 2>
          }
          %10 = scf.for %arg10 = %c0_3 to %c4_5 step %c1_4 iter_args(%arg11 = %async_token_7) -> (!air.token) {
            %12 = air.channel.get async [%arg11]  @to_herd[] (%results_8[] [] []) : (memref<256xf32, 2>)
            %13 = air.execute [%12] {
              scf.for %arg12 = %c0_3 to %c256_6 step %c1_4 {
                %15 = memref.load %results_8[%arg12] : memref<256xf32, 2>
                %16 = arith.negf %15 : f32
                memref.store %16, %results_8[%arg12] : memref<256xf32, 2>
              }
            }
            %14 = air.channel.put async [%13]  @from_herd[] (%results_8[] [] []) : (memref<256xf32, 2>)
            scf.yield %14 : !air.token
          }
          %11 = air.execute [%10] {
            memref.dealloc %results_8 : memref<256xf32, 2>
          }
        }
        %9 = air.execute [%7, %8] {
          memref.dealloc %results : memref<256xf32, 1>
        }
      }
      %6 = air.wait_all async [%2, %3, %4, %5] 
    }
    air.wait_all [%0]
    return
  }
}
