// Several top-level operations in one file: MLIR wraps them in an implicit
// module. Here two modules (each its own symbol table: both declare @ch and
// @copy) follow a top-level channel and function.
// VERIFY: ok
// RUN: @top
air.channel @ch [1, 1]
func.func @top(%arg0: memref<8xi32>, %arg1: memref<8xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg2) in (%arg3=%c1) args(%arg4=%arg0, %arg5=%arg1) : memref<8xi32>, memref<8xi32> {
    %0 = air.channel.put async  @ch[] (%arg4[] [] []) : (memref<8xi32>)
    air.channel.get  @ch[] (%arg5[] [] []) : (memref<8xi32>)
    air.wait_all [%0]
  }
  return
}
module @first {
  air.channel @ch [1]
  func.func @copy(%arg0: memref<4xf32>, %arg1: memref<4xf32>) {
    memref.copy %arg0, %arg1 : memref<4xf32> to memref<4xf32>
    return
  }
}
module @second attributes {air.device = "npu1_1col"} {
  air.channel @ch [2]
  func.func @copy(%arg0: memref<4xi32>) {
    return
  }
}
