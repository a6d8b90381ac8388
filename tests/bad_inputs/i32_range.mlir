// A failing input (tests/bad_inputs/README.md): an i32 scalar argument given a
// number it cannot hold; air-run says which values it takes instead of wrapping.
// air-run-args: --input 0=99999999999 --output 1=out.npy
func.func @store(%n: i32, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  memref.store %n, %out[%c0] : memref<4xi32>
  return
}
