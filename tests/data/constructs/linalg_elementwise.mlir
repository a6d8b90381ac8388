// Named elementwise linalg ops on L1 tiles of a 2x1 herd: add, sub, mul, div, max,
// min (binary) and exp, abs, negf, sqrt, square (unary), each writing its own
// 8-element slice of the result row.
// A second function applies the other float ops (powf, log, ceil, floor,
// reciprocal, round, rsqrt, tanh, erf) and div_unsigned on i32.
// VERIFY: ok
// RUN: @elementwise
// RUN: @elementwise_more
module {
  func.func @elementwise(%arg0: memref<2x8xf32>, %arg1: memref<2x8xf32>, %arg2: memref<2x88xf32>) {
    %c1 = arith.constant 1 : index
    air.launch (%arg3, %arg4) in (%arg5=%c1, %arg6=%c1) args(%arg7=%arg0, %arg8=%arg1, %arg9=%arg2) : memref<2x8xf32>, memref<2x8xf32>, memref<2x88xf32> {
      air.segment @seg_0  args(%arg10=%arg7, %arg11=%arg8, %arg12=%arg9) : memref<2x8xf32>, memref<2x8xf32>, memref<2x88xf32> {
        %c2 = arith.constant 2 : index
        %c1_0 = arith.constant 1 : index
        air.herd @herd_0  tile (%arg13, %arg14) in (%arg15=%c2, %arg16=%c1_0) args(%arg17=%arg10, %arg18=%arg11, %arg19=%arg12) : memref<2x8xf32>, memref<2x8xf32>, memref<2x88xf32> {
          %c0 = arith.constant 0 : index
          %c1_1 = arith.constant 1 : index
          %c8 = arith.constant 8 : index
          %c88 = arith.constant 88 : index
          %alloc = memref.alloc() : memref<8xf32, 2>
          %alloc_2 = memref.alloc() : memref<8xf32, 2>
          %alloc_3 = memref.alloc() : memref<88xf32, 2>
          air.dma_memcpy_nd (%alloc[] [] [], %arg17[%arg13, %c0] [%c1_1, %c8] [%c8, %c1_1]) : (memref<8xf32, 2>, memref<2x8xf32>)
          air.dma_memcpy_nd (%alloc_2[] [] [], %arg18[%arg13, %c0] [%c1_1, %c8] [%c8, %c1_1]) : (memref<8xf32, 2>, memref<2x8xf32>)
          %subview = memref.subview %alloc_3[0] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1]>, 2>
          linalg.add ins(%alloc, %alloc_2 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview : memref<8xf32, strided<[1]>, 2>)
          %subview_4 = memref.subview %alloc_3[8] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 8>, 2>
          linalg.sub ins(%alloc, %alloc_2 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview_4 : memref<8xf32, strided<[1], offset: 8>, 2>)
          %subview_5 = memref.subview %alloc_3[16] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 16>, 2>
          linalg.mul ins(%alloc, %alloc_2 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview_5 : memref<8xf32, strided<[1], offset: 16>, 2>)
          %subview_6 = memref.subview %alloc_3[24] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 24>, 2>
          linalg.div ins(%alloc, %alloc_2 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview_6 : memref<8xf32, strided<[1], offset: 24>, 2>)
          %subview_7 = memref.subview %alloc_3[32] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 32>, 2>
          linalg.max ins(%alloc, %alloc_2 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview_7 : memref<8xf32, strided<[1], offset: 32>, 2>)
          %subview_8 = memref.subview %alloc_3[40] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 40>, 2>
          linalg.min ins(%alloc, %alloc_2 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview_8 : memref<8xf32, strided<[1], offset: 40>, 2>)
          %subview_9 = memref.subview %alloc_3[48] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 48>, 2>
          linalg.exp ins(%alloc : memref<8xf32, 2>) outs(%subview_9 : memref<8xf32, strided<[1], offset: 48>, 2>)
          %subview_10 = memref.subview %alloc_3[56] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 56>, 2>
          linalg.abs ins(%alloc : memref<8xf32, 2>) outs(%subview_10 : memref<8xf32, strided<[1], offset: 56>, 2>)
          %subview_11 = memref.subview %alloc_3[64] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 64>, 2>
          linalg.negf ins(%alloc : memref<8xf32, 2>) outs(%subview_11 : memref<8xf32, strided<[1], offset: 64>, 2>)
          %subview_12 = memref.subview %alloc_3[72] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 72>, 2>
          linalg.sqrt ins(%alloc_2 : memref<8xf32, 2>) outs(%subview_12 : memref<8xf32, strided<[1], offset: 72>, 2>)
          %subview_13 = memref.subview %alloc_3[80] [8] [1] : memref<88xf32, 2> to memref<8xf32, strided<[1], offset: 80>, 2>
          linalg.square ins(%alloc : memref<8xf32, 2>) outs(%subview_13 : memref<8xf32, strided<[1], offset: 80>, 2>)
          air.dma_memcpy_nd (%arg19[%arg13, %c0] [%c1_1, %c88] [%c88, %c1_1], %alloc_3[] [] []) : (memref<2x88xf32>, memref<88xf32, 2>)
          memref.dealloc %alloc : memref<8xf32, 2>
          memref.dealloc %alloc_2 : memref<8xf32, 2>
          memref.dealloc %alloc_3 : memref<88xf32, 2>
        }
      }
    }
    return
  }
  func.func @elementwise_more(%arg0: memref<8xf32>, %arg1: memref<8xf32>, %arg2: memref<9x8xf32>, %arg3: memref<8xi32>, %arg4: memref<8xi32>, %arg5: memref<8xi32>) {
    %c1 = arith.constant 1 : index
    air.launch (%arg6, %arg7) in (%arg8=%c1, %arg9=%c1) args(%arg10=%arg0, %arg11=%arg1, %arg12=%arg2, %arg13=%arg3, %arg14=%arg4, %arg15=%arg5) : memref<8xf32>, memref<8xf32>, memref<9x8xf32>, memref<8xi32>, memref<8xi32>, memref<8xi32> {
      air.segment @seg_1  args(%arg16=%arg10, %arg17=%arg11, %arg18=%arg12, %arg19=%arg13, %arg20=%arg14, %arg21=%arg15) : memref<8xf32>, memref<8xf32>, memref<9x8xf32>, memref<8xi32>, memref<8xi32>, memref<8xi32> {
        %c1_0 = arith.constant 1 : index
        air.herd @herd_1  tile (%arg22, %arg23) in (%arg24=%c1_0, %arg25=%c1_0) args(%arg26=%arg16, %arg27=%arg17, %arg28=%arg18, %arg29=%arg19, %arg30=%arg20, %arg31=%arg21) : memref<8xf32>, memref<8xf32>, memref<9x8xf32>, memref<8xi32>, memref<8xi32>, memref<8xi32> {
          %alloc = memref.alloc() : memref<8xf32, 2>
          %alloc_0 = memref.alloc() : memref<8xf32, 2>
          %alloc_1 = memref.alloc() : memref<9x8xf32, 2>
          air.dma_memcpy_nd (%alloc[] [] [], %arg26[] [] []) : (memref<8xf32, 2>, memref<8xf32>)
          air.dma_memcpy_nd (%alloc_0[] [] [], %arg27[] [] []) : (memref<8xf32, 2>, memref<8xf32>)
          %subview_0 = memref.subview %alloc_1[0, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1]>, 2>
          linalg.powf ins(%alloc, %alloc_0 : memref<8xf32, 2>, memref<8xf32, 2>) outs(%subview_0 : memref<8xf32, strided<[1]>, 2>)
          %subview_1 = memref.subview %alloc_1[1, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 8>, 2>
          linalg.log ins(%alloc : memref<8xf32, 2>) outs(%subview_1 : memref<8xf32, strided<[1], offset: 8>, 2>)
          %subview_2 = memref.subview %alloc_1[2, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 16>, 2>
          linalg.ceil ins(%alloc : memref<8xf32, 2>) outs(%subview_2 : memref<8xf32, strided<[1], offset: 16>, 2>)
          %subview_3 = memref.subview %alloc_1[3, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 24>, 2>
          linalg.floor ins(%alloc : memref<8xf32, 2>) outs(%subview_3 : memref<8xf32, strided<[1], offset: 24>, 2>)
          %subview_4 = memref.subview %alloc_1[4, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 32>, 2>
          linalg.reciprocal ins(%alloc : memref<8xf32, 2>) outs(%subview_4 : memref<8xf32, strided<[1], offset: 32>, 2>)
          %subview_5 = memref.subview %alloc_1[5, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 40>, 2>
          linalg.round ins(%alloc : memref<8xf32, 2>) outs(%subview_5 : memref<8xf32, strided<[1], offset: 40>, 2>)
          %subview_6 = memref.subview %alloc_1[6, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 48>, 2>
          linalg.rsqrt ins(%alloc : memref<8xf32, 2>) outs(%subview_6 : memref<8xf32, strided<[1], offset: 48>, 2>)
          %subview_7 = memref.subview %alloc_1[7, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 56>, 2>
          linalg.tanh ins(%alloc : memref<8xf32, 2>) outs(%subview_7 : memref<8xf32, strided<[1], offset: 56>, 2>)
          %subview_8 = memref.subview %alloc_1[8, 0] [1, 8] [1, 1] : memref<9x8xf32, 2> to memref<8xf32, strided<[1], offset: 64>, 2>
          linalg.erf ins(%alloc : memref<8xf32, 2>) outs(%subview_8 : memref<8xf32, strided<[1], offset: 64>, 2>)
          air.dma_memcpy_nd (%arg28[] [] [], %alloc_1[] [] []) : (memref<9x8xf32>, memref<9x8xf32, 2>)
          %alloc_2 = memref.alloc() : memref<8xi32, 2>
          %alloc_3 = memref.alloc() : memref<8xi32, 2>
          %alloc_4 = memref.alloc() : memref<8xi32, 2>
          air.dma_memcpy_nd (%alloc_2[] [] [], %arg29[] [] []) : (memref<8xi32, 2>, memref<8xi32>)
          air.dma_memcpy_nd (%alloc_3[] [] [], %arg30[] [] []) : (memref<8xi32, 2>, memref<8xi32>)
          linalg.div_unsigned ins(%alloc_2, %alloc_3 : memref<8xi32, 2>, memref<8xi32, 2>) outs(%alloc_4 : memref<8xi32, 2>)
          air.dma_memcpy_nd (%arg31[] [] [], %alloc_4[] [] []) : (memref<8xi32>, memref<8xi32, 2>)
          memref.dealloc %alloc : memref<8xf32, 2>
          memref.dealloc %alloc_0 : memref<8xf32, 2>
          memref.dealloc %alloc_1 : memref<9x8xf32, 2>
          memref.dealloc %alloc_2 : memref<8xi32, 2>
          memref.dealloc %alloc_3 : memref<8xi32, 2>
          memref.dealloc %alloc_4 : memref<8xi32, 2>
        }
      }
    }
    return
  }
}
