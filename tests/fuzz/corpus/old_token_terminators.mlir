#set = affine_set<()[s0, s1] : (s0 == 0, s1 >= 0)>
module {
  air.channel @ch [1, 1] {broadcast_shape = [2, 1], channel_type = "npu_dma_stream"}
  func.func @f(%arg0: memref<32x32xbf16>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %0 = air.launch async  (%arg1) in (%arg2=%c1) args(%arg3=%arg0) : memref<32x32xbf16> attributes {id = 1 : i32} {
      %1 = air.channel.put async  @ch[] (%arg3[] [] []) {id = 2 : i32} : (memref<32x32xbf16>)
      %2 = air.segment @s async  attributes {id = 3 : i32, x_loc = 0 : i64, y_loc = 2 : i64, x_size = 2 : i64, y_size = 1 : i64} {
        %c2_0 = arith.constant 2 : index
        %c1_0 = arith.constant 1 : index
        %3 = air.herd @h async  tile (%arg4, %arg5) in (%arg6=%c2_0, %arg7=%c1_0) attributes {id = 4 : i32, link_with = "k.o"} {
          %async_token, %results = air.execute -> (memref<32x32xbf16, 2 : i32>) {
            %alloc = memref.alloc() : memref<32x32xbf16, 2 : i32>
            air.execute_terminator %alloc : memref<32x32xbf16, 2 : i32>
          } {id = 5 : i32}
          %4 = air.channel.get async [%async_token]  @ch[%arg4, %arg5] (%results[] [] []) {id = 6 : i32} : (memref<32x32xbf16, 2 : i32>)
          %async_token_1 = air.execute [%4] {
            memref.dealloc %results : memref<32x32xbf16, 2 : i32>
          } {id = 7 : i32}
          air.herd_terminator
        }
        air.segment_terminator
      }
      air.launch_terminator
    }
    air.wait_all [%0] : !air.async.token
    return
  }
}
