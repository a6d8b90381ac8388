// air.execute with several results, result groups bound as %r:3 and used as
// %r#1, blocking and async wait_all, and a herd that computes an L1 tile from
// values produced by executes.
module {
  air.channel @out [2, 1]
  air.channel @l3 [1, 1]
  func.func @fill_rows(%arg0: memref<2x64xi32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg1) in (%arg2=%c1) args(%arg3=%arg0) : memref<2x64xi32> {
      %1 = air.channel.get async  @l3[] (%arg3[] [] []) : (memref<2x64xi32>)
      %2 = air.segment @rows async  {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c64 = arith.constant 64 : index
        %async_token, %results = air.execute -> (memref<2x64xi32, 1>) {
          %alloc = memref.alloc() : memref<2x64xi32, 1>
          air.execute_terminator %alloc : memref<2x64xi32, 1>
        }
        %4 = scf.parallel (%arg4) = (%c0) to (%c2) step (%c1_0) init (%async_token) -> !air.token {
          %7 = air.channel.get async [%async_token]  @out[%arg4, %c0] (%results[%arg4, %c0] [%c1_0, %c64] [%c64, %c1_0]) : (memref<2x64xi32, 1>)
          scf.reduce(%7 : !air.token) {
          ^bb0(%arg5: !air.token, %arg6: !air.token):
            %8 = air.wait_all async [%arg5, %arg6] 
            scf.reduce.return %8 : !air.token
          }
        }
        %3 = air.herd @rows_herd async  tile (%arg4, %arg5) in (%arg6=%c2, %arg7=%c1_0) {
          %c0_1 = arith.constant 0 : index
          %c1_2 = arith.constant 1 : index
          %c64_3 = arith.constant 64 : index
          %r:3 = air.execute -> (memref<64xi32, 2>, i32) {
            %alloc = memref.alloc() {alignment = 64 : i64} : memref<64xi32, 2>
            %7 = arith.index_cast %arg4 : index to i32
            air.execute_terminator %alloc, %7 : memref<64xi32, 2>, i32
          }
          %async_token_4, %results_5 = air.execute [%r#0] -> (i32) {
            %c10_i32 = arith.constant 10 : i32
            %7 = arith.muli %r#2, %c10_i32 : i32
            air.execute_terminator %7 : i32
          }
          %5 = air.execute [%async_token_4] {
            linalg.fill ins(%results_5 : i32) outs(%r#1 : memref<64xi32, 2>)
          }
          %6 = air.channel.put async [%5]  @out[%arg4, %arg5] (%r#1[] [] []) : (memref<64xi32, 2>)
          air.wait_all [%6]
          %async_token_6 = air.execute {
            memref.dealloc %r#1 : memref<64xi32, 2>
          }
        }
        %5 = air.wait_all async [%4, %3] 
        %6 = air.channel.put async [%5]  @l3[] (%results[] [] []) : (memref<2x64xi32, 1>)
        air.wait_all [%6] {id = 7 : i32}
        %async_token_7 = air.execute {
          memref.dealloc %results : memref<2x64xi32, 1>
        }
      }
      air.wait_all [%1, %2]
    }
    air.wait_all [%0]
    return
  }
}
