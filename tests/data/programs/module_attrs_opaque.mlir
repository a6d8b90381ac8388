// A named module with attributes, and attribute dictionaries libairrt keeps
// without interpreting them: dense arrays, dialect attributes, nested
// dictionaries, symbol references, types, strings with escapes and unit flags.
#map = affine_map<(d0) -> (d0)>
#set = affine_set<(d0)[s0] : (d0 - s0 >= 0, -d0 + 7 >= 0)>
module @annotated attributes {air.target = "npu1", llvm.data_layout = "", transform.with_named_sequence} {
  air.channel @c0 [1] {channel_type = "npu_dma_stream", depth = 1 : i64}
  func.func @annotated(%arg0: memref<8xi8>, %arg1: memref<8xi8>) attributes {air.note = "line\0Anext \"quoted\"", llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg2) in (%arg3=%c1) args(%arg4=%arg0, %arg5=%arg1) : memref<8xi8>, memref<8xi8> attributes {id = 1 : i32, tags = ["a", "b"], opts = {level = 3 : i32, ratio = 5.000000e-01 : f32, nested = {deep = true}}} {
      %1 = air.channel.put async  @c0[%arg2] (%arg4[] [] []) {id = 2 : i32, pad_before = array<i32: 0, 0>, pad_after = array<i32>, meta = dense<[1, 2]> : tensor<2xi32>, kind = #linalg.type_fn<cast_signed>} : (memref<8xi8>)
      %2 = air.segment @s async  args(%arg6=%arg5) : memref<8xi8> attributes {map = #map, set = #set, ref = @annotated, ty = memref<8xi8, 1>, elem = f32, unit_flag, neg = -4 : i64, big = 4294967296 : i64} {
        %c0 = arith.constant 0 : index
        %async_token, %results = air.execute -> (memref<8xi8, 1>) {
          %alloc = memref.alloc() {air.pinned} : memref<8xi8, 1>
          air.execute_terminator %alloc : memref<8xi8, 1>
        }
        %4 = air.channel.get async [%async_token]  @c0[%c0] (%results[] [] []) {id = 3 : i32} : (memref<8xi8, 1>)
        %5 = air.dma_memcpy_nd async [%4] (%arg6[] [] [], %results[] [] []) {id = 4 : i32} : (memref<8xi8>, memref<8xi8, 1>)
        %6 = air.execute [%5] {
          memref.dealloc %results : memref<8xi8, 1>
        }
      }
      %3 = air.wait_all async [%1, %2]  {id = 5 : i32}
    }
    air.wait_all [%0]
    return
  }
}
