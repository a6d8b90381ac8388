// A 2x1 segment iteration space written with `unroll`, each instance driving a
// 1x2 herd that calls an external kernel (link_with) on L1 tiles it fetches with
// dma_memcpy_nd from an L2 buffer. Placement attributes are in `attributes`.
#map = affine_map<()[s0, s1] -> (s0 * 64 + s1 * 32)>
module {
  func.func private @scale_kernel(memref<32xi16, 2>, i16) attributes {link_with = "scale.o", llvm.emit_c_interface}
  func.func @unrolled(%arg0: memref<128xi16>) {
    %c1 = arith.constant 1 : index
    %0 = air.launch async () in () args(%arg1=%arg0) : memref<128xi16> {
      %c2 = arith.constant 2 : index
      %c1_0 = arith.constant 1 : index
      %1 = air.segment @seg_0 async  unroll(%arg2, %arg3) in (%arg4=%c2, %arg5=%c1_0) args(%arg6=%arg1) : memref<128xi16> attributes {x_loc = 0 : i64, x_size = 2 : i64, y_loc = 2 : i64, y_size = 4 : i64} {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c2_2 = arith.constant 2 : index
        %c64 = arith.constant 64 : index
        %2 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%arg2]
        %async_token, %results = air.execute -> (memref<64xi16, 1>) {
          %alloc = memref.alloc() : memref<64xi16, 1>
          air.execute_terminator %alloc : memref<64xi16, 1>
        }
        %3 = air.dma_memcpy_nd async [%async_token] (%results[] [] [], %arg6[%2] [%c64] [%c1_1]) : (memref<64xi16, 1>, memref<128xi16>)
        %4 = air.herd @kernel_herd async [%3]  tile (%arg7, %arg8) in (%arg9=%c2_2, %arg10=%c1_1) args(%arg11=%results) : memref<64xi16, 1> attributes {link_with = "scale.o", x_loc = 0 : i64, y_loc = 2 : i64} {
          %c0_3 = arith.constant 0 : index
          %c1_4 = arith.constant 1 : index
          %c32 = arith.constant 32 : index
          %c3_i16 = arith.constant 3 : i16
          %7 = affine.apply #map()[%c0_3, %arg7]
          %async_token_5, %results_6 = air.execute -> (memref<32xi16, 2>) {
            %alloc = memref.alloc() : memref<32xi16, 2>
            air.execute_terminator %alloc : memref<32xi16, 2>
          }
          %8 = air.dma_memcpy_nd async [%async_token_5] (%results_6[] [] [], %arg11[%7] [%c32] [%c1_4]) : (memref<32xi16, 2>, memref<64xi16, 1>)
          %9 = air.execute [%8] {
            func.call @scale_kernel(%results_6, %c3_i16) : (memref<32xi16, 2>, i16) -> ()
          }
          %10 = air.dma_memcpy_nd async [%9] (%arg11[%7] [%c32] [%c1_4], %results_6[] [] []) : (memref<64xi16, 1>, memref<32xi16, 2>)
          %11 = air.execute [%10] {
            memref.dealloc %results_6 : memref<32xi16, 2>
          }
        }
        %5 = air.dma_memcpy_nd async [%4] (%arg6[%2] [%c64] [%c1_1], %results[] [] []) : (memref<128xi16>, memref<64xi16, 1>)
        %6 = air.execute [%5] {
          memref.dealloc %results : memref<64xi16, 1>
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
