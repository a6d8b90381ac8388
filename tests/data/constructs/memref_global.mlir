// memref.global + memref.get_global: a constant table in L3 that the host copies
// from, a constant table in L1 that every PE reads in place (the form
// air-to-aie writes for lookup tables), a splat initialiser, and a mutable
// uninitialised global the host fills and reads back.
// VERIFY: ok
// RUN: @lookup
module {
  memref.global "private" constant @__constant_8xi32 : memref<8xi32> = dense<[1, -2, 3, -4, 5, -6, 7, -8]> {alignment = 64 : i64}
  memref.global "private" constant @lut_l1 : memref<4xf32, 2> = dense<[1.000000e+00, 5.000000e-01, 2.500000e-01, 1.250000e-01]>
  memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<2.500000e+00>
  memref.global @scratch : memref<4xf32> = uninitialized
  func.func @lookup(%arg0: memref<8xi32>, %arg1: memref<4xf32>, %arg2: memref<2xf32>) {
    %0 = memref.get_global @__constant_8xi32 : memref<8xi32>
    memref.copy %0, %arg0 : memref<8xi32> to memref<8xi32>
    %1 = memref.get_global @__constant_2xf32 : memref<2xf32>
    %2 = memref.get_global @scratch : memref<4xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %3 = memref.load %1[%c1] : memref<2xf32>
    memref.store %3, %2[%c0] : memref<4xf32>
    %4 = memref.load %2[%c0] : memref<4xf32>
    memref.store %4, %arg2[%c0] : memref<2xf32>
    air.launch (%arg3, %arg4) in (%arg5=%c1, %arg6=%c1) args(%arg7=%arg1) : memref<4xf32> {
      air.segment @seg_0  args(%arg8=%arg7) : memref<4xf32> {
        %c1_0 = arith.constant 1 : index
        air.herd @herd_0  tile (%arg9, %arg10) in (%arg11=%c1_0, %arg12=%c1_0) args(%arg13=%arg8) : memref<4xf32> {
          %5 = memref.get_global @lut_l1 : memref<4xf32, 2>
          %alloc = memref.alloc() : memref<4xf32, 2>
          linalg.mul ins(%5, %5 : memref<4xf32, 2>, memref<4xf32, 2>) outs(%alloc : memref<4xf32, 2>)
          air.dma_memcpy_nd (%arg13[] [] [], %alloc[] [] []) : (memref<4xf32>, memref<4xf32, 2>)
          memref.dealloc %alloc : memref<4xf32, 2>
        }
      }
    }
    return
  }
}
