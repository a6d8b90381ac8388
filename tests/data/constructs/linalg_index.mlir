// linalg.index inside linalg.generic, as lowered iota and mask patterns read it:
// each PE writes out[i][j] = in[i][j] + i * 16 + j over its 16x16 L1 tile.
// VERIFY: ok
// RUN: @index_iota
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @index_iota(%arg0: memref<16x16xi32>, %arg1: memref<16x16xi32>) {
    %c1 = arith.constant 1 : index
    air.launch (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<16x16xi32>, memref<16x16xi32> {
      air.segment @seg_0  args(%arg8=%arg6, %arg9=%arg7) : memref<16x16xi32>, memref<16x16xi32> {
        %c1_0 = arith.constant 1 : index
        air.herd @herd_0  tile (%arg10, %arg11) in (%arg12=%c1_0, %arg13=%c1_0) args(%arg14=%arg8, %arg15=%arg9) : memref<16x16xi32>, memref<16x16xi32> {
          %alloc = memref.alloc() : memref<16x16xi32, 2>
          %alloc_1 = memref.alloc() : memref<16x16xi32, 2>
          air.dma_memcpy_nd (%alloc[] [] [], %arg14[] [] []) : (memref<16x16xi32, 2>, memref<16x16xi32>)
          linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc : memref<16x16xi32, 2>) outs(%alloc_1 : memref<16x16xi32, 2>) {
          ^bb0(%in: i32, %out: i32):
            %0 = linalg.index 0 : index
            %1 = linalg.index 1 : index
            %c16 = arith.constant 16 : index
            %2 = arith.muli %0, %c16 : index
            %3 = arith.addi %2, %1 : index
            %4 = arith.index_cast %3 : index to i32
            %5 = arith.addi %in, %4 : i32
            linalg.yield %5 : i32
          }
          air.dma_memcpy_nd (%arg15[] [] [], %alloc_1[] [] []) : (memref<16x16xi32>, memref<16x16xi32, 2>)
          memref.dealloc %alloc : memref<16x16xi32, 2>
          memref.dealloc %alloc_1 : memref<16x16xi32, 2>
        }
      }
    }
    return
  }
}
