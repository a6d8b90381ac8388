// math ops in herd code, each applied to 16 inputs by one PE and compared
// against C's libm: every unary float op, powf / atan2 / copysign on two
// inputs, and fma on three. Row k of the output holds op k. @math_int applies
// absi, ctpop, ctlz and cttz to i32 and i8 values.
// VERIFY: ok
// RUN: @math_f32
// RUN: @math_f64
// RUN: @math_int
func.func @math_f32(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: memref<30x16xf32>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg3, %arg4) in (%arg5=%c1, %arg6=%c1) args(%arg7=%arg0, %arg8=%arg1, %arg9=%arg2) : memref<16xf32>, memref<16xf32>, memref<30x16xf32> {
    air.segment @seg_0  args(%arg10=%arg7, %arg11=%arg8, %arg12=%arg9) : memref<16xf32>, memref<16xf32>, memref<30x16xf32> {
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg13, %arg14) in (%arg15=%c1_0, %arg16=%c1_0) args(%arg17=%arg10, %arg18=%arg11, %arg19=%arg12) : memref<16xf32>, memref<16xf32>, memref<30x16xf32> {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %alloc = memref.alloc() : memref<16xf32, 2>
        %alloc_2 = memref.alloc() : memref<16xf32, 2>
        %alloc_3 = memref.alloc() : memref<30x16xf32, 2>
        air.dma_memcpy_nd (%alloc[] [] [], %arg17[] [] []) : (memref<16xf32, 2>, memref<16xf32>)
        air.dma_memcpy_nd (%alloc_2[] [] [], %arg18[] [] []) : (memref<16xf32, 2>, memref<16xf32>)
        %c0_r = arith.constant 0 : index
        %c1_r = arith.constant 1 : index
        %c2_r = arith.constant 2 : index
        %c3_r = arith.constant 3 : index
        %c4_r = arith.constant 4 : index
        %c5_r = arith.constant 5 : index
        %c6_r = arith.constant 6 : index
        %c7_r = arith.constant 7 : index
        %c8_r = arith.constant 8 : index
        %c9_r = arith.constant 9 : index
        %c10_r = arith.constant 10 : index
        %c11_r = arith.constant 11 : index
        %c12_r = arith.constant 12 : index
        %c13_r = arith.constant 13 : index
        %c14_r = arith.constant 14 : index
        %c15_r = arith.constant 15 : index
        %c16_r = arith.constant 16 : index
        %c17_r = arith.constant 17 : index
        %c18_r = arith.constant 18 : index
        %c19_r = arith.constant 19 : index
        %c20_r = arith.constant 20 : index
        %c21_r = arith.constant 21 : index
        %c22_r = arith.constant 22 : index
        %c23_r = arith.constant 23 : index
        %c24_r = arith.constant 24 : index
        %c25_r = arith.constant 25 : index
        %c26_r = arith.constant 26 : index
        %c27_r = arith.constant 27 : index
        %c28_r = arith.constant 28 : index
        %c29_r = arith.constant 29 : index
        scf.for %arg20 = %c0 to %c16 step %c1_1 {
          %x = memref.load %alloc[%arg20] : memref<16xf32, 2>
          %y = memref.load %alloc_2[%arg20] : memref<16xf32, 2>
          %sqrt = math.sqrt %x : f32
          memref.store %sqrt, %alloc_3[%c0_r, %arg20] : memref<30x16xf32, 2>
          %rsqrt = math.rsqrt %x : f32
          memref.store %rsqrt, %alloc_3[%c1_r, %arg20] : memref<30x16xf32, 2>
          %exp = math.exp %x : f32
          memref.store %exp, %alloc_3[%c2_r, %arg20] : memref<30x16xf32, 2>
          %exp2 = math.exp2 %x : f32
          memref.store %exp2, %alloc_3[%c3_r, %arg20] : memref<30x16xf32, 2>
          %expm1 = math.expm1 %x : f32
          memref.store %expm1, %alloc_3[%c4_r, %arg20] : memref<30x16xf32, 2>
          %log = math.log %x : f32
          memref.store %log, %alloc_3[%c5_r, %arg20] : memref<30x16xf32, 2>
          %log2 = math.log2 %x : f32
          memref.store %log2, %alloc_3[%c6_r, %arg20] : memref<30x16xf32, 2>
          %log10 = math.log10 %x : f32
          memref.store %log10, %alloc_3[%c7_r, %arg20] : memref<30x16xf32, 2>
          %log1p = math.log1p %x : f32
          memref.store %log1p, %alloc_3[%c8_r, %arg20] : memref<30x16xf32, 2>
          %tanh = math.tanh %x : f32
          memref.store %tanh, %alloc_3[%c9_r, %arg20] : memref<30x16xf32, 2>
          %sin = math.sin %x : f32
          memref.store %sin, %alloc_3[%c10_r, %arg20] : memref<30x16xf32, 2>
          %cos = math.cos %x : f32
          memref.store %cos, %alloc_3[%c11_r, %arg20] : memref<30x16xf32, 2>
          %tan = math.tan %x : f32
          memref.store %tan, %alloc_3[%c12_r, %arg20] : memref<30x16xf32, 2>
          %atan = math.atan %x : f32
          memref.store %atan, %alloc_3[%c13_r, %arg20] : memref<30x16xf32, 2>
          %sinh = math.sinh %x : f32
          memref.store %sinh, %alloc_3[%c14_r, %arg20] : memref<30x16xf32, 2>
          %cosh = math.cosh %x : f32
          memref.store %cosh, %alloc_3[%c15_r, %arg20] : memref<30x16xf32, 2>
          %asin = math.asin %x : f32
          memref.store %asin, %alloc_3[%c16_r, %arg20] : memref<30x16xf32, 2>
          %acos = math.acos %x : f32
          memref.store %acos, %alloc_3[%c17_r, %arg20] : memref<30x16xf32, 2>
          %erf = math.erf %x : f32
          memref.store %erf, %alloc_3[%c18_r, %arg20] : memref<30x16xf32, 2>
          %cbrt = math.cbrt %x : f32
          memref.store %cbrt, %alloc_3[%c19_r, %arg20] : memref<30x16xf32, 2>
          %absf = math.absf %x : f32
          memref.store %absf, %alloc_3[%c20_r, %arg20] : memref<30x16xf32, 2>
          %floor = math.floor %x : f32
          memref.store %floor, %alloc_3[%c21_r, %arg20] : memref<30x16xf32, 2>
          %ceil = math.ceil %x : f32
          memref.store %ceil, %alloc_3[%c22_r, %arg20] : memref<30x16xf32, 2>
          %round = math.round %x : f32
          memref.store %round, %alloc_3[%c23_r, %arg20] : memref<30x16xf32, 2>
          %roundeven = math.roundeven %x : f32
          memref.store %roundeven, %alloc_3[%c24_r, %arg20] : memref<30x16xf32, 2>
          %trunc = math.trunc %x : f32
          memref.store %trunc, %alloc_3[%c25_r, %arg20] : memref<30x16xf32, 2>
          %powf = math.powf %x, %y : f32
          memref.store %powf, %alloc_3[%c26_r, %arg20] : memref<30x16xf32, 2>
          %atan2 = math.atan2 %x, %y : f32
          memref.store %atan2, %alloc_3[%c27_r, %arg20] : memref<30x16xf32, 2>
          %copysign = math.copysign %x, %y : f32
          memref.store %copysign, %alloc_3[%c28_r, %arg20] : memref<30x16xf32, 2>
          %fma = math.fma %x, %y, %x : f32
          memref.store %fma, %alloc_3[%c29_r, %arg20] : memref<30x16xf32, 2>
        }
        air.dma_memcpy_nd (%arg19[] [] [], %alloc_3[] [] []) : (memref<30x16xf32>, memref<30x16xf32, 2>)
        memref.dealloc %alloc : memref<16xf32, 2>
        memref.dealloc %alloc_2 : memref<16xf32, 2>
        memref.dealloc %alloc_3 : memref<30x16xf32, 2>
      }
    }
  }
  return
}
func.func @math_f64(%arg0: memref<16xf64>, %arg1: memref<16xf64>, %arg2: memref<30x16xf64>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg3, %arg4) in (%arg5=%c1, %arg6=%c1) args(%arg7=%arg0, %arg8=%arg1, %arg9=%arg2) : memref<16xf64>, memref<16xf64>, memref<30x16xf64> {
    air.segment @seg_0  args(%arg10=%arg7, %arg11=%arg8, %arg12=%arg9) : memref<16xf64>, memref<16xf64>, memref<30x16xf64> {
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg13, %arg14) in (%arg15=%c1_0, %arg16=%c1_0) args(%arg17=%arg10, %arg18=%arg11, %arg19=%arg12) : memref<16xf64>, memref<16xf64>, memref<30x16xf64> {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %alloc = memref.alloc() : memref<16xf64, 2>
        %alloc_2 = memref.alloc() : memref<16xf64, 2>
        %alloc_3 = memref.alloc() : memref<30x16xf64, 2>
        air.dma_memcpy_nd (%alloc[] [] [], %arg17[] [] []) : (memref<16xf64, 2>, memref<16xf64>)
        air.dma_memcpy_nd (%alloc_2[] [] [], %arg18[] [] []) : (memref<16xf64, 2>, memref<16xf64>)
        %c0_r = arith.constant 0 : index
        %c1_r = arith.constant 1 : index
        %c2_r = arith.constant 2 : index
        %c3_r = arith.constant 3 : index
        %c4_r = arith.constant 4 : index
        %c5_r = arith.constant 5 : index
        %c6_r = arith.constant 6 : index
        %c7_r = arith.constant 7 : index
        %c8_r = arith.constant 8 : index
        %c9_r = arith.constant 9 : index
        %c10_r = arith.constant 10 : index
        %c11_r = arith.constant 11 : index
        %c12_r = arith.constant 12 : index
        %c13_r = arith.constant 13 : index
        %c14_r = arith.constant 14 : index
        %c15_r = arith.constant 15 : index
        %c16_r = arith.constant 16 : index
        %c17_r = arith.constant 17 : index
        %c18_r = arith.constant 18 : index
        %c19_r = arith.constant 19 : index
        %c20_r = arith.constant 20 : index
        %c21_r = arith.constant 21 : index
        %c22_r = arith.constant 22 : index
        %c23_r = arith.constant 23 : index
        %c24_r = arith.constant 24 : index
        %c25_r = arith.constant 25 : index
        %c26_r = arith.constant 26 : index
        %c27_r = arith.constant 27 : index
        %c28_r = arith.constant 28 : index
        %c29_r = arith.constant 29 : index
        scf.for %arg20 = %c0 to %c16 step %c1_1 {
          %x = memref.load %alloc[%arg20] : memref<16xf64, 2>
          %y = memref.load %alloc_2[%arg20] : memref<16xf64, 2>
          %sqrt = math.sqrt %x : f64
          memref.store %sqrt, %alloc_3[%c0_r, %arg20] : memref<30x16xf64, 2>
          %rsqrt = math.rsqrt %x : f64
          memref.store %rsqrt, %alloc_3[%c1_r, %arg20] : memref<30x16xf64, 2>
          %exp = math.exp %x : f64
          memref.store %exp, %alloc_3[%c2_r, %arg20] : memref<30x16xf64, 2>
          %exp2 = math.exp2 %x : f64
          memref.store %exp2, %alloc_3[%c3_r, %arg20] : memref<30x16xf64, 2>
          %expm1 = math.expm1 %x : f64
          memref.store %expm1, %alloc_3[%c4_r, %arg20] : memref<30x16xf64, 2>
          %log = math.log %x : f64
          memref.store %log, %alloc_3[%c5_r, %arg20] : memref<30x16xf64, 2>
          %log2 = math.log2 %x : f64
          memref.store %log2, %alloc_3[%c6_r, %arg20] : memref<30x16xf64, 2>
          %log10 = math.log10 %x : f64
          memref.store %log10, %alloc_3[%c7_r, %arg20] : memref<30x16xf64, 2>
          %log1p = math.log1p %x : f64
          memref.store %log1p, %alloc_3[%c8_r, %arg20] : memref<30x16xf64, 2>
          %tanh = math.tanh %x : f64
          memref.store %tanh, %alloc_3[%c9_r, %arg20] : memref<30x16xf64, 2>
          %sin = math.sin %x : f64
          memref.store %sin, %alloc_3[%c10_r, %arg20] : memref<30x16xf64, 2>
          %cos = math.cos %x : f64
          memref.store %cos, %alloc_3[%c11_r, %arg20] : memref<30x16xf64, 2>
          %tan = math.tan %x : f64
          memref.store %tan, %alloc_3[%c12_r, %arg20] : memref<30x16xf64, 2>
          %atan = math.atan %x : f64
          memref.store %atan, %alloc_3[%c13_r, %arg20] : memref<30x16xf64, 2>
          %sinh = math.sinh %x : f64
          memref.store %sinh, %alloc_3[%c14_r, %arg20] : memref<30x16xf64, 2>
          %cosh = math.cosh %x : f64
          memref.store %cosh, %alloc_3[%c15_r, %arg20] : memref<30x16xf64, 2>
          %asin = math.asin %x : f64
          memref.store %asin, %alloc_3[%c16_r, %arg20] : memref<30x16xf64, 2>
          %acos = math.acos %x : f64
          memref.store %acos, %alloc_3[%c17_r, %arg20] : memref<30x16xf64, 2>
          %erf = math.erf %x : f64
          memref.store %erf, %alloc_3[%c18_r, %arg20] : memref<30x16xf64, 2>
          %cbrt = math.cbrt %x : f64
          memref.store %cbrt, %alloc_3[%c19_r, %arg20] : memref<30x16xf64, 2>
          %absf = math.absf %x : f64
          memref.store %absf, %alloc_3[%c20_r, %arg20] : memref<30x16xf64, 2>
          %floor = math.floor %x : f64
          memref.store %floor, %alloc_3[%c21_r, %arg20] : memref<30x16xf64, 2>
          %ceil = math.ceil %x : f64
          memref.store %ceil, %alloc_3[%c22_r, %arg20] : memref<30x16xf64, 2>
          %round = math.round %x : f64
          memref.store %round, %alloc_3[%c23_r, %arg20] : memref<30x16xf64, 2>
          %roundeven = math.roundeven %x : f64
          memref.store %roundeven, %alloc_3[%c24_r, %arg20] : memref<30x16xf64, 2>
          %trunc = math.trunc %x : f64
          memref.store %trunc, %alloc_3[%c25_r, %arg20] : memref<30x16xf64, 2>
          %powf = math.powf %x, %y : f64
          memref.store %powf, %alloc_3[%c26_r, %arg20] : memref<30x16xf64, 2>
          %atan2 = math.atan2 %x, %y : f64
          memref.store %atan2, %alloc_3[%c27_r, %arg20] : memref<30x16xf64, 2>
          %copysign = math.copysign %x, %y : f64
          memref.store %copysign, %alloc_3[%c28_r, %arg20] : memref<30x16xf64, 2>
          %fma = math.fma %x, %y, %x : f64
          memref.store %fma, %alloc_3[%c29_r, %arg20] : memref<30x16xf64, 2>
        }
        air.dma_memcpy_nd (%arg19[] [] [], %alloc_3[] [] []) : (memref<30x16xf64>, memref<30x16xf64, 2>)
        memref.dealloc %alloc : memref<16xf64, 2>
        memref.dealloc %alloc_2 : memref<16xf64, 2>
        memref.dealloc %alloc_3 : memref<30x16xf64, 2>
      }
    }
  }
  return
}
func.func @math_int(%arg0: memref<16xi32>, %arg1: memref<8x16xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg2, %arg3) in (%arg4=%c1, %arg5=%c1) args(%arg6=%arg0, %arg7=%arg1) : memref<16xi32>, memref<8x16xi32> {
    air.segment @seg_0  args(%arg8=%arg6, %arg9=%arg7) : memref<16xi32>, memref<8x16xi32> {
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg10, %arg11) in (%arg12=%c1_0, %arg13=%c1_0) args(%arg14=%arg8, %arg15=%arg9) : memref<16xi32>, memref<8x16xi32> {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c3 = arith.constant 3 : index
        %c4 = arith.constant 4 : index
        %c5 = arith.constant 5 : index
        %c6 = arith.constant 6 : index
        %c7 = arith.constant 7 : index
        %c16 = arith.constant 16 : index
        %alloc = memref.alloc() : memref<16xi32, 2>
        %alloc_2 = memref.alloc() : memref<8x16xi32, 2>
        air.dma_memcpy_nd (%alloc[] [] [], %arg14[] [] []) : (memref<16xi32, 2>, memref<16xi32>)
        scf.for %arg16 = %c0 to %c16 step %c1_1 {
          %x = memref.load %alloc[%arg16] : memref<16xi32, 2>
          %absi = math.absi %x : i32
          memref.store %absi, %alloc_2[%c0, %arg16] : memref<8x16xi32, 2>
          %ctpop = math.ctpop %x : i32
          memref.store %ctpop, %alloc_2[%c1_1, %arg16] : memref<8x16xi32, 2>
          %ctlz = math.ctlz %x : i32
          memref.store %ctlz, %alloc_2[%c2, %arg16] : memref<8x16xi32, 2>
          %cttz = math.cttz %x : i32
          memref.store %cttz, %alloc_2[%c3, %arg16] : memref<8x16xi32, 2>
          %x8 = arith.trunci %x : i32 to i8
          %absi8 = math.absi %x8 : i8
          %e0 = arith.extsi %absi8 : i8 to i32
          memref.store %e0, %alloc_2[%c4, %arg16] : memref<8x16xi32, 2>
          %ctpop8 = math.ctpop %x8 : i8
          %e1 = arith.extui %ctpop8 : i8 to i32
          memref.store %e1, %alloc_2[%c5, %arg16] : memref<8x16xi32, 2>
          %ctlz8 = math.ctlz %x8 : i8
          %e2 = arith.extui %ctlz8 : i8 to i32
          memref.store %e2, %alloc_2[%c6, %arg16] : memref<8x16xi32, 2>
          %cttz8 = math.cttz %x8 : i8
          %e3 = arith.extui %cttz8 : i8 to i32
          memref.store %e3, %alloc_2[%c7, %arg16] : memref<8x16xi32, 2>
        }
        air.dma_memcpy_nd (%arg15[] [] [], %alloc_2[] [] []) : (memref<8x16xi32>, memref<8x16xi32, 2>)
        memref.dealloc %alloc : memref<16xi32, 2>
        memref.dealloc %alloc_2 : memref<8x16xi32, 2>
      }
    }
  }
  return
}
