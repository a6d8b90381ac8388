// bf16 inputs, f32 accumulation: each tile of a 2x2 herd computes
// C = A * B + bias with linalg.generic (indexing maps as #map aliases), plus
// linalg.fill, linalg.copy and a named linalg.matmul with a dialect attribute.
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<()[s0] -> (s0 * 32)>
module {
  func.func @gemm_bias_bf16(%arg0: memref<64x64xbf16>, %arg1: memref<64x64xbf16>, %arg2: memref<64x64xf32>, %arg3: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async (%arg4) in (%arg5=%c1) args(%arg6=%arg0, %arg7=%arg1, %arg8=%arg2, %arg9=%arg3) : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xf32>, memref<64x64xf32> {
      %1 = air.segment @gemm_seg async  args(%arg10=%arg6, %arg11=%arg7, %arg12=%arg8, %arg13=%arg9) : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xf32>, memref<64x64xf32> {
        %c2 = arith.constant 2 : index
        %2 = air.herd @gemm_herd async  tile (%arg14, %arg15) in (%arg16=%c2, %arg17=%c2) args(%arg18=%arg10, %arg19=%arg11, %arg20=%arg12, %arg21=%arg13) : memref<64x64xbf16>, memref<64x64xbf16>, memref<64x64xf32>, memref<64x64xf32> {
          %c0 = arith.constant 0 : index
          %c1_0 = arith.constant 1 : index
          %c32 = arith.constant 32 : index
          %c64 = arith.constant 64 : index
          %cst = arith.constant 0.000000e+00 : f32
          %cst_1 = arith.constant 1.000000e+00 : bf16
          %3 = affine.apply #map4()[%arg14]
          %4 = affine.apply #map4()[%arg15]
          %async_token, %results = air.execute -> (memref<32x64xbf16, 2>) {
            %alloc = memref.alloc() : memref<32x64xbf16, 2>
            air.execute_terminator %alloc : memref<32x64xbf16, 2>
          }
          %async_token_2, %results_3 = air.execute -> (memref<64x32xbf16, 2>) {
            %alloc = memref.alloc() : memref<64x32xbf16, 2>
            air.execute_terminator %alloc : memref<64x32xbf16, 2>
          }
          %async_token_4, %results_5 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          }
          %async_token_6, %results_7 = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          }
          %5 = air.dma_memcpy_nd async [%async_token] (%results[] [] [], %arg18[%3, %c0] [%c32, %c64] [%c64, %c1_0]) : (memref<32x64xbf16, 2>, memref<64x64xbf16>)
          %6 = air.dma_memcpy_nd async [%async_token_2] (%results_3[] [] [], %arg19[%c0, %4] [%c64, %c32] [%c64, %c1_0]) : (memref<64x32xbf16, 2>, memref<64x64xbf16>)
          %7 = air.dma_memcpy_nd async [%async_token_6] (%results_7[] [] [], %arg20[%3, %4] [%c32, %c32] [%c64, %c1_0]) : (memref<32x32xf32, 2>, memref<64x64xf32>)
          %8 = air.execute [%async_token_4] {
            linalg.fill ins(%cst : f32) outs(%results_5 : memref<32x32xf32, 2>)
          }
          %9 = air.execute [%5, %6, %8] {
            linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%results, %results_3 : memref<32x64xbf16, 2>, memref<64x32xbf16, 2>) outs(%results_5 : memref<32x32xf32, 2>) {
            ^bb0(%in: bf16, %in_8: bf16, %out: f32):
              %12 = arith.mulf %in, %in_8 : bf16
              %13 = arith.extf %12 : bf16 to f32
              %14 = arith.addf %out, %13 : f32
              linalg.yield %14 : f32
            }
          }
          %10 = air.execute [%9, %7] {
            linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%results_7 : memref<32x32xf32, 2>) outs(%results_5 : memref<32x32xf32, 2>) {
            ^bb0(%in: f32, %out: f32):
              %12 = arith.addf %in, %out : f32
              linalg.yield %12 : f32
            }
            linalg.copy ins(%results_5 : memref<32x32xf32, 2>) outs(%results_7 : memref<32x32xf32, 2>)
            linalg.matmul {cast = #linalg.type_fn<cast_signed>} ins(%results, %results_3 : memref<32x64xbf16, 2>, memref<64x32xbf16, 2>) outs(%results_7 : memref<32x32xf32, 2>)
            %12 = arith.truncf %cst : f32 to bf16
            %13 = arith.addf %12, %cst_1 : bf16
          }
          %11 = air.dma_memcpy_nd async [%10] (%arg21[%3, %4] [%c32, %c32] [%c64, %c1_0], %results_5[] [] []) : (memref<64x64xf32>, memref<32x32xf32, 2>)
          %async_token_9 = air.execute [%11] {
            memref.dealloc %results : memref<32x64xbf16, 2>
            memref.dealloc %results_3 : memref<64x32xbf16, 2>
            memref.dealloc %results_5 : memref<32x32xf32, 2>
            memref.dealloc %results_7 : memref<32x32xf32, 2>
          }
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
