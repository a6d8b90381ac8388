// Unranked memrefs as mlir-air's runner tests use them: a result is cast to
// memref<*xf32> for the runtime's printMemrefF32, an L1 tile goes through an
// unranked kernel signature, and an unranked value is cast back to its shape.
// VERIFY: ok
// RUN: @unranked
module {
  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @scale_any(memref<*xf32, 2>) attributes {link_with = "scale_any.o"}
  func.func @unranked(%arg0: memref<8x8xf32>, %arg1: memref<8x8xf32>) {
    %c1 = arith.constant 1 : index
    air.launch (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<8x8xf32>, memref<8x8xf32> {
      air.segment @seg_0  args(%arg8=%arg6, %arg9=%arg7) : memref<8x8xf32>, memref<8x8xf32> {
        %c1_0 = arith.constant 1 : index
        air.herd @herd_0  tile (%arg10, %arg11) in (%arg12=%c1_0, %arg13=%c1_0) args(%arg14=%arg8, %arg15=%arg9) : memref<8x8xf32>, memref<8x8xf32> {
          %alloc = memref.alloc() : memref<8x8xf32, 2>
          air.dma_memcpy_nd (%alloc[] [] [], %arg14[] [] []) : (memref<8x8xf32, 2>, memref<8x8xf32>)
          %cast = memref.cast %alloc : memref<8x8xf32, 2> to memref<*xf32, 2>
          func.call @scale_any(%cast) : (memref<*xf32, 2>) -> ()
          %cast_1 = memref.cast %cast : memref<*xf32, 2> to memref<8x8xf32, 2>
          air.dma_memcpy_nd (%arg15[] [] [], %cast_1[] [] []) : (memref<8x8xf32>, memref<8x8xf32, 2>)
          memref.dealloc %alloc : memref<8x8xf32, 2>
        }
      }
    }
    %cast = memref.cast %arg1 : memref<8x8xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    return
  }
}
