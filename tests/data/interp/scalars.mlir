// Host-level scalar code: a called function with results, integer division
// flavours, bf16/f16 rounding, scf.if, affine.for with iter_args, and a
// memref.subview copied out with memref.copy.
func.func @poly(%x: i32, %y: f32) -> (i32, f32) {
  %c3 = arith.constant 3 : i32
  %a = arith.muli %x, %c3 : i32
  %b = arith.sitofp %a : i32 to f32
  %c = arith.addf %b, %y : f32
  return %a, %c : i32, f32
}
func.func @scalars(%out: memref<8xf32>, %iout: memref<8xi32>, %m: memref<4x4xi32>, %m2: memref<2x2xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %x = arith.constant 7 : i32
  %y = arith.constant 5.000000e-01 : f32
  %r:2 = func.call @poly(%x, %y) : (i32, f32) -> (i32, f32)
  memref.store %r#1, %out[%c0] : memref<8xf32>
  memref.store %r#0, %iout[%c0] : memref<8xi32>
  %e = arith.constant 1.001953125 : f32
  %t = arith.truncf %e : f32 to bf16
  %u = arith.extf %t : bf16 to f32
  memref.store %u, %out[%c1] : memref<8xf32>
  %h = arith.constant 2049.0 : f32
  %hh = arith.truncf %h : f32 to f16
  %hf = arith.extf %hh : f16 to f32
  memref.store %hf, %out[%c2] : memref<8xf32>
  %cmp = arith.cmpi sgt, %r#0, %x : i32
  %v = scf.if %cmp -> (f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  memref.store %v, %out[%c3] : memref<8xf32>
  %z = arith.constant 0 : i32
  %s = affine.for %i = 0 to 10 step 3 iter_args(%acc = %z) -> (i32) {
    %ii = arith.index_cast %i : index to i32
    %n = arith.addi %acc, %ii : i32
    affine.yield %n : i32
  }
  memref.store %s, %iout[%c1] : memref<8xi32>
  %m7 = arith.constant -7 : i32
  %two = arith.constant 2 : i32
  %d0 = arith.divsi %m7, %two : i32
  %d1 = arith.remsi %m7, %two : i32
  %d2 = arith.floordivsi %m7, %two : i32
  %d3 = arith.ceildivsi %m7, %two : i32
  %d4 = arith.ceildivsi %x, %two : i32
  memref.store %d0, %iout[%c2] : memref<8xi32>
  memref.store %d1, %iout[%c3] : memref<8xi32>
  memref.store %d2, %iout[%c4] : memref<8xi32>
  memref.store %d3, %iout[%c5] : memref<8xi32>
  memref.store %d4, %iout[%c6] : memref<8xi32>
  %sv = memref.subview %m[1, 2] [2, 2] [1, 1] : memref<4x4xi32> to memref<2x2xi32, strided<[4, 1], offset: 6>>
  memref.copy %sv, %m2 : memref<2x2xi32, strided<[4, 1], offset: 6>> to memref<2x2xi32>
  return
}
