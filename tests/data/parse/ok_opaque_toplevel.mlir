// expect-ok
// expect-warnings: 2
// Module-level operations of other dialects are kept verbatim, with a warning.
ml_program.global private @lut(dense<[1, 2, 3, 4]> : tensor<4xi32>) : tensor<4xi32>
llvm.mlir.global internal @g(0 : i32) {addr_space = 0 : i32} : i32
func.func @uses_nothing() {
  return
}
