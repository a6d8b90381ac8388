// scf.index_switch in herd code: each tile of a 4x1 herd picks its factor by its
// column (cases, a negative factor, a default), and a switch without results
// that only some tiles take.
// VERIFY: ok
// RUN: @switch_scale
func.func @switch_scale(%arg0: memref<4x16xi32>, %arg1: memref<4x16xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<4x16xi32>, memref<4x16xi32> {
    air.segment @seg_0  args(%arg8=%arg6, %arg9=%arg7) : memref<4x16xi32>, memref<4x16xi32> {
      %c4 = arith.constant 4 : index
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg10, %arg11) in (%arg12=%c4, %arg13=%c1_0) args(%arg14=%arg8, %arg15=%arg9) : memref<4x16xi32>, memref<4x16xi32> {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %alloc = memref.alloc() : memref<16xi32, 2>
        air.dma_memcpy_nd (%alloc[] [] [], %arg14[%arg10, %c0] [%c1_1, %c16] [%c16, %c1_1]) : (memref<16xi32, 2>, memref<4x16xi32>)
        %0 = scf.index_switch %arg10 -> i32
        case 0 {
          %c3_i32 = arith.constant 3 : i32
          scf.yield %c3_i32 : i32
        }
        case 2 {
          %c-1_i32 = arith.constant -1 : i32
          scf.yield %c-1_i32 : i32
        }
        default {
          %c1_i32 = arith.constant 1 : i32
          scf.yield %c1_i32 : i32
        }
        scf.for %arg16 = %c0 to %c16 step %c1_1 {
          %1 = memref.load %alloc[%arg16] : memref<16xi32, 2>
          %2 = arith.muli %1, %0 : i32
          memref.store %2, %alloc[%arg16] : memref<16xi32, 2>
        }
        scf.index_switch %arg10
        case 3 {
          %c100_i32 = arith.constant 100 : i32
          memref.store %c100_i32, %alloc[%c0] : memref<16xi32, 2>
          scf.yield
        }
        default {
        }
        air.dma_memcpy_nd (%arg15[%arg10, %c0] [%c1_1, %c16] [%c16, %c1_1], %alloc[] [] []) : (memref<4x16xi32>, memref<16xi32, 2>)
        memref.dealloc %alloc : memref<16xi32, 2>
      }
    }
  }
  return
}
