// The arith ops beyond add/sub/mul in herd code, checked against C: remsi /
// remui, min / max (signed, unsigned, the four float flavours), divisions and
// shifts on i8, i16, i32 and i64, remf, and casts between every integer width and
// every float type (sitofp, uitofp, fptosi, fptoui, extf / truncf, index casts,
// bitcast). Integer results are widened to i64 (row k of %arg4 holds case k),
// float results to f64 (%arg5).
// VERIFY: ok
// RUN: @arith_casts
func.func @arith_casts(%arg0: memref<16xi32>, %arg1: memref<16xi32>, %arg2: memref<16xf32>, %arg3: memref<16xf32>, %arg4: memref<43x16xi64>, %arg5: memref<20x16xf64>) {
  %c1 = arith.constant 1 : index
  air.launch (%arg6, %arg7) in (%arg8=%c1, %arg9=%c1) args(%arg10=%arg0, %arg11=%arg1, %arg12=%arg2, %arg13=%arg3, %arg14=%arg4, %arg15=%arg5) : memref<16xi32>, memref<16xi32>, memref<16xf32>, memref<16xf32>, memref<43x16xi64>, memref<20x16xf64> {
    air.segment @seg_0  args(%arg16=%arg10, %arg17=%arg11, %arg18=%arg12, %arg19=%arg13, %arg21=%arg14, %arg22=%arg15) : memref<16xi32>, memref<16xi32>, memref<16xf32>, memref<16xf32>, memref<43x16xi64>, memref<20x16xf64> {
      %c1_0 = arith.constant 1 : index
      air.herd @herd_0  tile (%arg23, %arg24) in (%arg25=%c1_0, %arg26=%c1_0) args(%in_a=%arg16, %in_b=%arg17, %in_x=%arg18, %in_y=%arg19, %out_i=%arg21, %out_f=%arg22) : memref<16xi32>, memref<16xi32>, memref<16xf32>, memref<16xf32>, memref<43x16xi64>, memref<20x16xf64> {
        %c0 = arith.constant 0 : index
        %c1_1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %alloc_a = memref.alloc() : memref<16xi32, 2>
        air.dma_memcpy_nd (%alloc_a[] [] [], %in_a[] [] []) : (memref<16xi32, 2>, memref<16xi32>)
        %alloc_b = memref.alloc() : memref<16xi32, 2>
        air.dma_memcpy_nd (%alloc_b[] [] [], %in_b[] [] []) : (memref<16xi32, 2>, memref<16xi32>)
        %alloc_x = memref.alloc() : memref<16xf32, 2>
        air.dma_memcpy_nd (%alloc_x[] [] [], %in_x[] [] []) : (memref<16xf32, 2>, memref<16xf32>)
        %alloc_y = memref.alloc() : memref<16xf32, 2>
        air.dma_memcpy_nd (%alloc_y[] [] [], %in_y[] [] []) : (memref<16xf32, 2>, memref<16xf32>)
        %alloc_i = memref.alloc() : memref<43x16xi64, 2>
        %alloc_f = memref.alloc() : memref<20x16xf64, 2>
        %row0 = arith.constant 0 : index
        %row1 = arith.constant 1 : index
        %row2 = arith.constant 2 : index
        %row3 = arith.constant 3 : index
        %row4 = arith.constant 4 : index
        %row5 = arith.constant 5 : index
        %row6 = arith.constant 6 : index
        %row7 = arith.constant 7 : index
        %row8 = arith.constant 8 : index
        %row9 = arith.constant 9 : index
        %row10 = arith.constant 10 : index
        %row11 = arith.constant 11 : index
        %row12 = arith.constant 12 : index
        %row13 = arith.constant 13 : index
        %row14 = arith.constant 14 : index
        %row15 = arith.constant 15 : index
        %row16 = arith.constant 16 : index
        %row17 = arith.constant 17 : index
        %row18 = arith.constant 18 : index
        %row19 = arith.constant 19 : index
        %row20 = arith.constant 20 : index
        %row21 = arith.constant 21 : index
        %row22 = arith.constant 22 : index
        %row23 = arith.constant 23 : index
        %row24 = arith.constant 24 : index
        %row25 = arith.constant 25 : index
        %row26 = arith.constant 26 : index
        %row27 = arith.constant 27 : index
        %row28 = arith.constant 28 : index
        %row29 = arith.constant 29 : index
        %row30 = arith.constant 30 : index
        %row31 = arith.constant 31 : index
        %row32 = arith.constant 32 : index
        %row33 = arith.constant 33 : index
        %row34 = arith.constant 34 : index
        %row35 = arith.constant 35 : index
        %row36 = arith.constant 36 : index
        %row37 = arith.constant 37 : index
        %row38 = arith.constant 38 : index
        %row39 = arith.constant 39 : index
        %row40 = arith.constant 40 : index
        %row41 = arith.constant 41 : index
        %row42 = arith.constant 42 : index
        scf.for %arg20 = %c0 to %c16 step %c1_1 {
          %x = memref.load %alloc_x[%arg20] : memref<16xf32, 2>
          %y = memref.load %alloc_y[%arg20] : memref<16xf32, 2>
          %a = memref.load %alloc_a[%arg20] : memref<16xi32, 2>
          %b = memref.load %alloc_b[%arg20] : memref<16xi32, 2>
          %a_i8 = arith.trunci %a : i32 to i8
          %b_i8 = arith.trunci %b : i32 to i8
          %a_i16 = arith.trunci %a : i32 to i16
          %b_i16 = arith.trunci %b : i32 to i16
          %a_i64 = arith.extsi %a : i32 to i64
          %b_i64 = arith.extsi %b : i32 to i64
          %c31_i32 = arith.constant 31 : i32
          %sh = arith.andi %b, %c31_i32 : i32
          %zero_i64 = arith.constant 0 : i64
          %zero_f64 = arith.constant 0.000000e+00 : f64
          %x_f64 = arith.extf %x : f32 to f64
          %x_f16 = arith.truncf %x : f32 to f16
          %x_bf16 = arith.truncf %x : f32 to bf16
          %ax = math.absf %x : f32
          %ax_f64 = arith.extf %ax : f32 to f64
          %ax_f16 = arith.truncf %ax : f32 to f16
          %t_remsi_i32 = arith.remsi %a, %b : i32
          %r_remsi_i32 = arith.extsi %t_remsi_i32 : i32 to i64
          memref.store %r_remsi_i32, %alloc_i[%row0, %arg20] : memref<43x16xi64, 2>
          %t_remui_i32 = arith.remui %a, %b : i32
          %r_remui_i32 = arith.extui %t_remui_i32 : i32 to i64
          memref.store %r_remui_i32, %alloc_i[%row1, %arg20] : memref<43x16xi64, 2>
          %t_minsi_i32 = arith.minsi %a, %b : i32
          %r_minsi_i32 = arith.extsi %t_minsi_i32 : i32 to i64
          memref.store %r_minsi_i32, %alloc_i[%row2, %arg20] : memref<43x16xi64, 2>
          %t_maxsi_i32 = arith.maxsi %a, %b : i32
          %r_maxsi_i32 = arith.extsi %t_maxsi_i32 : i32 to i64
          memref.store %r_maxsi_i32, %alloc_i[%row3, %arg20] : memref<43x16xi64, 2>
          %t_minui_i32 = arith.minui %a, %b : i32
          %r_minui_i32 = arith.extui %t_minui_i32 : i32 to i64
          memref.store %r_minui_i32, %alloc_i[%row4, %arg20] : memref<43x16xi64, 2>
          %t_maxui_i32 = arith.maxui %a, %b : i32
          %r_maxui_i32 = arith.extui %t_maxui_i32 : i32 to i64
          memref.store %r_maxui_i32, %alloc_i[%row5, %arg20] : memref<43x16xi64, 2>
          %t_divsi_i32 = arith.divsi %a, %b : i32
          %r_divsi_i32 = arith.extsi %t_divsi_i32 : i32 to i64
          memref.store %r_divsi_i32, %alloc_i[%row6, %arg20] : memref<43x16xi64, 2>
          %t_divui_i32 = arith.divui %a, %b : i32
          %r_divui_i32 = arith.extui %t_divui_i32 : i32 to i64
          memref.store %r_divui_i32, %alloc_i[%row7, %arg20] : memref<43x16xi64, 2>
          %t_ceildivsi_i32 = arith.ceildivsi %a, %b : i32
          %r_ceildivsi_i32 = arith.extsi %t_ceildivsi_i32 : i32 to i64
          memref.store %r_ceildivsi_i32, %alloc_i[%row8, %arg20] : memref<43x16xi64, 2>
          %t_floordivsi_i32 = arith.floordivsi %a, %b : i32
          %r_floordivsi_i32 = arith.extsi %t_floordivsi_i32 : i32 to i64
          memref.store %r_floordivsi_i32, %alloc_i[%row9, %arg20] : memref<43x16xi64, 2>
          %t_remsi_i8 = arith.remsi %a_i8, %b_i8 : i8
          %r_remsi_i8 = arith.extsi %t_remsi_i8 : i8 to i64
          memref.store %r_remsi_i8, %alloc_i[%row10, %arg20] : memref<43x16xi64, 2>
          %t_remui_i8 = arith.remui %a_i8, %b_i8 : i8
          %r_remui_i8 = arith.extui %t_remui_i8 : i8 to i64
          memref.store %r_remui_i8, %alloc_i[%row11, %arg20] : memref<43x16xi64, 2>
          %t_minsi_i8 = arith.minsi %a_i8, %b_i8 : i8
          %r_minsi_i8 = arith.extsi %t_minsi_i8 : i8 to i64
          memref.store %r_minsi_i8, %alloc_i[%row12, %arg20] : memref<43x16xi64, 2>
          %t_maxui_i8 = arith.maxui %a_i8, %b_i8 : i8
          %r_maxui_i8 = arith.extui %t_maxui_i8 : i8 to i64
          memref.store %r_maxui_i8, %alloc_i[%row13, %arg20] : memref<43x16xi64, 2>
          %t_divsi_i8 = arith.divsi %a_i8, %b_i8 : i8
          %r_divsi_i8 = arith.extsi %t_divsi_i8 : i8 to i64
          memref.store %r_divsi_i8, %alloc_i[%row14, %arg20] : memref<43x16xi64, 2>
          %t_divui_i8 = arith.divui %a_i8, %b_i8 : i8
          %r_divui_i8 = arith.extui %t_divui_i8 : i8 to i64
          memref.store %r_divui_i8, %alloc_i[%row15, %arg20] : memref<43x16xi64, 2>
          %t_remsi_i16 = arith.remsi %a_i16, %b_i16 : i16
          %r_remsi_i16 = arith.extsi %t_remsi_i16 : i16 to i64
          memref.store %r_remsi_i16, %alloc_i[%row16, %arg20] : memref<43x16xi64, 2>
          %t_remui_i16 = arith.remui %a_i16, %b_i16 : i16
          %r_remui_i16 = arith.extui %t_remui_i16 : i16 to i64
          memref.store %r_remui_i16, %alloc_i[%row17, %arg20] : memref<43x16xi64, 2>
          %t_minsi_i16 = arith.minsi %a_i16, %b_i16 : i16
          %r_minsi_i16 = arith.extsi %t_minsi_i16 : i16 to i64
          memref.store %r_minsi_i16, %alloc_i[%row18, %arg20] : memref<43x16xi64, 2>
          %t_maxui_i16 = arith.maxui %a_i16, %b_i16 : i16
          %r_maxui_i16 = arith.extui %t_maxui_i16 : i16 to i64
          memref.store %r_maxui_i16, %alloc_i[%row19, %arg20] : memref<43x16xi64, 2>
          %t_divsi_i16 = arith.divsi %a_i16, %b_i16 : i16
          %r_divsi_i16 = arith.extsi %t_divsi_i16 : i16 to i64
          memref.store %r_divsi_i16, %alloc_i[%row20, %arg20] : memref<43x16xi64, 2>
          %t_divui_i16 = arith.divui %a_i16, %b_i16 : i16
          %r_divui_i16 = arith.extui %t_divui_i16 : i16 to i64
          memref.store %r_divui_i16, %alloc_i[%row21, %arg20] : memref<43x16xi64, 2>
          %t_remsi_i64 = arith.remsi %a_i64, %b_i64 : i64
          %r_remsi_i64 = arith.addi %t_remsi_i64, %zero_i64 : i64
          memref.store %r_remsi_i64, %alloc_i[%row22, %arg20] : memref<43x16xi64, 2>
          %t_remui_i64 = arith.remui %a_i64, %b_i64 : i64
          %r_remui_i64 = arith.addi %t_remui_i64, %zero_i64 : i64
          memref.store %r_remui_i64, %alloc_i[%row23, %arg20] : memref<43x16xi64, 2>
          %t_shrsi = arith.shrsi %a, %sh : i32
          %r_shrsi = arith.extsi %t_shrsi : i32 to i64
          memref.store %r_shrsi, %alloc_i[%row24, %arg20] : memref<43x16xi64, 2>
          %t_shrui = arith.shrui %a, %sh : i32
          %r_shrui = arith.extui %t_shrui : i32 to i64
          memref.store %r_shrui, %alloc_i[%row25, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f32_i8 = arith.fptosi %x : f32 to i8
          %r_fptosi_f32_i8 = arith.extsi %t_fptosi_f32_i8 : i8 to i64
          memref.store %r_fptosi_f32_i8, %alloc_i[%row26, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f32_i16 = arith.fptosi %x : f32 to i16
          %r_fptosi_f32_i16 = arith.extsi %t_fptosi_f32_i16 : i16 to i64
          memref.store %r_fptosi_f32_i16, %alloc_i[%row27, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f32_i32 = arith.fptosi %x : f32 to i32
          %r_fptosi_f32_i32 = arith.extsi %t_fptosi_f32_i32 : i32 to i64
          memref.store %r_fptosi_f32_i32, %alloc_i[%row28, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f32_i64 = arith.fptosi %x : f32 to i64
          %r_fptosi_f32_i64 = arith.addi %t_fptosi_f32_i64, %zero_i64 : i64
          memref.store %r_fptosi_f32_i64, %alloc_i[%row29, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f64_i32 = arith.fptosi %x_f64 : f64 to i32
          %r_fptosi_f64_i32 = arith.extsi %t_fptosi_f64_i32 : i32 to i64
          memref.store %r_fptosi_f64_i32, %alloc_i[%row30, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f16_i16 = arith.fptosi %x_f16 : f16 to i16
          %r_fptosi_f16_i16 = arith.extsi %t_fptosi_f16_i16 : i16 to i64
          memref.store %r_fptosi_f16_i16, %alloc_i[%row31, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_bf16_i32 = arith.fptosi %x_bf16 : bf16 to i32
          %r_fptosi_bf16_i32 = arith.extsi %t_fptosi_bf16_i32 : i32 to i64
          memref.store %r_fptosi_bf16_i32, %alloc_i[%row32, %arg20] : memref<43x16xi64, 2>
          %t_fptosi_f64_i64 = arith.fptosi %x_f64 : f64 to i64
          %r_fptosi_f64_i64 = arith.addi %t_fptosi_f64_i64, %zero_i64 : i64
          memref.store %r_fptosi_f64_i64, %alloc_i[%row33, %arg20] : memref<43x16xi64, 2>
          %t_fptoui_f32_i8 = arith.fptoui %ax : f32 to i8
          %r_fptoui_f32_i8 = arith.extui %t_fptoui_f32_i8 : i8 to i64
          memref.store %r_fptoui_f32_i8, %alloc_i[%row34, %arg20] : memref<43x16xi64, 2>
          %t_fptoui_f32_i16 = arith.fptoui %ax : f32 to i16
          %r_fptoui_f32_i16 = arith.extui %t_fptoui_f32_i16 : i16 to i64
          memref.store %r_fptoui_f32_i16, %alloc_i[%row35, %arg20] : memref<43x16xi64, 2>
          %t_fptoui_f32_i32 = arith.fptoui %ax : f32 to i32
          %r_fptoui_f32_i32 = arith.extui %t_fptoui_f32_i32 : i32 to i64
          memref.store %r_fptoui_f32_i32, %alloc_i[%row36, %arg20] : memref<43x16xi64, 2>
          %t_fptoui_f64_i64 = arith.fptoui %ax_f64 : f64 to i64
          %r_fptoui_f64_i64 = arith.addi %t_fptoui_f64_i64, %zero_i64 : i64
          memref.store %r_fptoui_f64_i64, %alloc_i[%row37, %arg20] : memref<43x16xi64, 2>
          %t_fptoui_f16_i8 = arith.fptoui %ax_f16 : f16 to i8
          %r_fptoui_f16_i8 = arith.extui %t_fptoui_f16_i8 : i8 to i64
          memref.store %r_fptoui_f16_i8, %alloc_i[%row38, %arg20] : memref<43x16xi64, 2>
          %t_ic = arith.index_cast %a : i32 to index
          %r_index_cast = arith.index_cast %t_ic : index to i64
          memref.store %r_index_cast, %alloc_i[%row39, %arg20] : memref<43x16xi64, 2>
          %t_icu = arith.index_castui %a : i32 to index
          %r_index_castui = arith.index_castui %t_icu : index to i64
          memref.store %r_index_castui, %alloc_i[%row40, %arg20] : memref<43x16xi64, 2>
          %t_bc = arith.bitcast %x : f32 to i32
          %r_bitcast = arith.extui %t_bc : i32 to i64
          memref.store %r_bitcast, %alloc_i[%row41, %arg20] : memref<43x16xi64, 2>
          %t_tr = arith.trunci %a : i32 to i8
          %r_trunci = arith.extsi %t_tr : i8 to i64
          memref.store %r_trunci, %alloc_i[%row42, %arg20] : memref<43x16xi64, 2>
          %t_sitofp_i8_f16 = arith.sitofp %a_i8 : i8 to f16
          %r_sitofp_i8_f16 = arith.extf %t_sitofp_i8_f16 : f16 to f64
          memref.store %r_sitofp_i8_f16, %alloc_f[%row0, %arg20] : memref<20x16xf64, 2>
          %t_sitofp_i8_bf16 = arith.sitofp %a_i8 : i8 to bf16
          %r_sitofp_i8_bf16 = arith.extf %t_sitofp_i8_bf16 : bf16 to f64
          memref.store %r_sitofp_i8_bf16, %alloc_f[%row1, %arg20] : memref<20x16xf64, 2>
          %t_sitofp_i16_f32 = arith.sitofp %a_i16 : i16 to f32
          %r_sitofp_i16_f32 = arith.extf %t_sitofp_i16_f32 : f32 to f64
          memref.store %r_sitofp_i16_f32, %alloc_f[%row2, %arg20] : memref<20x16xf64, 2>
          %t_sitofp_i32_f64 = arith.sitofp %a : i32 to f64
          %r_sitofp_i32_f64 = arith.addf %t_sitofp_i32_f64, %zero_f64 : f64
          memref.store %r_sitofp_i32_f64, %alloc_f[%row3, %arg20] : memref<20x16xf64, 2>
          %t_sitofp_i64_f32 = arith.sitofp %a_i64 : i64 to f32
          %r_sitofp_i64_f32 = arith.extf %t_sitofp_i64_f32 : f32 to f64
          memref.store %r_sitofp_i64_f32, %alloc_f[%row4, %arg20] : memref<20x16xf64, 2>
          %t_sitofp_i32_f16 = arith.sitofp %a : i32 to f16
          %r_sitofp_i32_f16 = arith.extf %t_sitofp_i32_f16 : f16 to f64
          memref.store %r_sitofp_i32_f16, %alloc_f[%row5, %arg20] : memref<20x16xf64, 2>
          %t_sitofp_i32_bf16 = arith.sitofp %a : i32 to bf16
          %r_sitofp_i32_bf16 = arith.extf %t_sitofp_i32_bf16 : bf16 to f64
          memref.store %r_sitofp_i32_bf16, %alloc_f[%row6, %arg20] : memref<20x16xf64, 2>
          %t_uitofp_i8_f32 = arith.uitofp %a_i8 : i8 to f32
          %r_uitofp_i8_f32 = arith.extf %t_uitofp_i8_f32 : f32 to f64
          memref.store %r_uitofp_i8_f32, %alloc_f[%row7, %arg20] : memref<20x16xf64, 2>
          %t_uitofp_i16_f16 = arith.uitofp %a_i16 : i16 to f16
          %r_uitofp_i16_f16 = arith.extf %t_uitofp_i16_f16 : f16 to f64
          memref.store %r_uitofp_i16_f16, %alloc_f[%row8, %arg20] : memref<20x16xf64, 2>
          %t_uitofp_i32_f64 = arith.uitofp %a : i32 to f64
          %r_uitofp_i32_f64 = arith.addf %t_uitofp_i32_f64, %zero_f64 : f64
          memref.store %r_uitofp_i32_f64, %alloc_f[%row9, %arg20] : memref<20x16xf64, 2>
          %t_uitofp_i64_f64 = arith.uitofp %a_i64 : i64 to f64
          %r_uitofp_i64_f64 = arith.addf %t_uitofp_i64_f64, %zero_f64 : f64
          memref.store %r_uitofp_i64_f64, %alloc_f[%row10, %arg20] : memref<20x16xf64, 2>
          %t_uitofp_i32_f32 = arith.uitofp %a : i32 to f32
          %r_uitofp_i32_f32 = arith.extf %t_uitofp_i32_f32 : f32 to f64
          memref.store %r_uitofp_i32_f32, %alloc_f[%row11, %arg20] : memref<20x16xf64, 2>
          %t_maximumf = arith.maximumf %x, %y : f32
          %r_maximumf = arith.extf %t_maximumf : f32 to f64
          memref.store %r_maximumf, %alloc_f[%row12, %arg20] : memref<20x16xf64, 2>
          %t_minimumf = arith.minimumf %x, %y : f32
          %r_minimumf = arith.extf %t_minimumf : f32 to f64
          memref.store %r_minimumf, %alloc_f[%row13, %arg20] : memref<20x16xf64, 2>
          %t_maxnumf = arith.maxnumf %x, %y : f32
          %r_maxnumf = arith.extf %t_maxnumf : f32 to f64
          memref.store %r_maxnumf, %alloc_f[%row14, %arg20] : memref<20x16xf64, 2>
          %t_minnumf = arith.minnumf %x, %y : f32
          %r_minnumf = arith.extf %t_minnumf : f32 to f64
          memref.store %r_minnumf, %alloc_f[%row15, %arg20] : memref<20x16xf64, 2>
          %t_remf = arith.remf %x, %y : f32
          %r_remf = arith.extf %t_remf : f32 to f64
          memref.store %r_remf, %alloc_f[%row16, %arg20] : memref<20x16xf64, 2>
          %r_truncf_f16 = arith.extf %x_f16 : f16 to f64
          memref.store %r_truncf_f16, %alloc_f[%row17, %arg20] : memref<20x16xf64, 2>
          %r_truncf_bf16 = arith.extf %x_bf16 : bf16 to f64
          memref.store %r_truncf_bf16, %alloc_f[%row18, %arg20] : memref<20x16xf64, 2>
          %t_tf = arith.truncf %x_f64 : f64 to f32
          %r_truncf_f64_f32 = arith.extf %t_tf : f32 to f64
          memref.store %r_truncf_f64_f32, %alloc_f[%row19, %arg20] : memref<20x16xf64, 2>
        }
        air.dma_memcpy_nd (%out_i[] [] [], %alloc_i[] [] []) : (memref<43x16xi64>, memref<43x16xi64, 2>)
        air.dma_memcpy_nd (%out_f[] [] [], %alloc_f[] [] []) : (memref<20x16xf64>, memref<20x16xf64, 2>)
      }
    }
  }
  return
}
