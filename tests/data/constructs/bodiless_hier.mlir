// air.launch, air.segment and air.herd printed without a body, as fusion and
// outlining passes leave them (the launch names its symbol). Such ops parse,
// print back with the names they were written with, and verify; they have
// nothing to run, so running one is refused at the op.
// VERIFY: ok
// RUN-ERROR: @fused: without a body
func.func @fused(%arg0: memref<64xi32>, %arg1: memref<64xi32>) {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %0 = air.launch @launch_0 async (%arg2, %arg3) in (%arg4=%c2, %arg5=%c1) args(%arg6=%arg0) : memref<64xi32>
  air.launch (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg1) : memref<64xi32> {
    %1 = air.segment @segment_0 async  args(%arg7=%arg6) : memref<64xi32>
    air.segment @segment_1  args(%arg7=%arg6) : memref<64xi32> {
      %c4 = arith.constant 4 : index
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg8, %arg9) in (%arg10=%c4, %arg11=%c1_0) args(%arg12=%arg7) : memref<64xi32>
    }
  }
  air.wait_all [%0]
  return
}
