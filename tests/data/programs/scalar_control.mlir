// Scalar and control-flow ops around and inside AIR code: constants in every
// form, arith comparisons, select and casts, scf.if with results, affine.for
// with iter_args, affine.apply with an inline map, memref.subview with a
// strided layout, memref.copy, a func with results and calls of private
// functions.
module {
  func.func private @external_kernel(memref<16x16xi32, strided<[32, 1], offset: ?>, 2>, i32) attributes {llvm.emit_c_interface}
  func.func @clamp(%arg0: index, %arg1: f32) -> (index, f32) {
    %c0 = arith.constant 0 : index
    %c15 = arith.constant 15 : index
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 0x7FC00000 : f32
    %cst_2 = arith.constant -2.500000e-01 : f64
    %true = arith.constant true
    %false = arith.constant false
    %c-1_i32 = arith.constant -1 : i32
    %c255_i8 = arith.constant 255 : i8
    %c7_i16 = arith.constant 7 : i16
    %c1_i64 = arith.constant 1 : i64
    %0 = arith.cmpi slt, %arg0, %c0 : index
    %1 = arith.select %0, %c0, %arg0 : index
    %2 = arith.cmpi sgt, %1, %c15 : index
    %3 = arith.select %2, %c15, %1 : index
    %4 = arith.cmpf olt, %arg1, %cst : f32
    %5 = arith.andi %4, %true : i1
    %6 = arith.ori %5, %false : i1
    %7 = scf.if %6 -> (f32) {
      scf.yield %cst : f32
    } else {
      %12 = arith.minimumf %arg1, %cst_0 : f32
      scf.yield %12 : f32
    }
    %8 = arith.cmpf uno, %7, %cst_1 : f32
    scf.if %8 {
      %12 = arith.extsi %c-1_i32 : i32 to i64
      %13 = arith.addi %12, %c1_i64 : i64
    }
    %9 = arith.extui %c255_i8 : i8 to i32
    %10 = arith.trunci %9 : i32 to i16
    %11 = arith.muli %10, %c7_i16 : i16
    %12 = arith.truncf %cst_2 : f64 to f32
    %13 = arith.sitofp %c-1_i32 : i32 to f32
    %14 = arith.fptosi %13 : f32 to i32
    %15 = arith.bitcast %14 : i32 to f32
    %16 = arith.divf %15, %12 : f32
    %17 = arith.index_castui %9 : i32 to index
    %18 = arith.remsi %17, %c15 : index
    %19 = arith.divsi %18, %c15 : index
    %20 = arith.maxsi %19, %3 : index
    %21 = arith.shli %c1_i64, %c1_i64 : i64
    %22 = arith.xori %21, %c1_i64 : i64
    %23 = arith.subf %16, %7 : f32
    %24 = arith.uitofp %9 : i32 to f32
    %25 = arith.maxnumf %23, %24 : f32
    return %20, %25 : index, f32
  }
  func.func @tiles(%arg0: memref<32x32xi32>) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 1.500000e+00 : f32
    %0:2 = call @clamp(%c0, %cst) : (index, f32) -> (index, f32)
    %1 = air.launch async () in () args(%arg1=%arg0) : memref<32x32xi32> {
      %2 = air.segment @tiles_seg async  args(%arg2=%arg1) : memref<32x32xi32> {
        %c2 = arith.constant 2 : index
        %3 = air.herd @tiles_herd async  tile (%arg3, %arg4) in (%arg5=%c2, %arg6=%c2) args(%arg7=%arg2) : memref<32x32xi32> {
          %c0_0 = arith.constant 0 : index
          %c1_i32 = arith.constant 1 : i32
          %4 = affine.apply affine_map<(d0) -> (d0 * 16)>(%arg3)
          %5 = affine.apply affine_map<(d0)[s0] -> (d0 * 16 + s0 - 0)>(%arg4)[%c0_0]
          %async_token, %results = air.execute -> (memref<32x32xi32, 2>) {
            %alloc = memref.alloc() : memref<32x32xi32, 2>
            air.execute_terminator %alloc : memref<32x32xi32, 2>
          }
          %6 = air.dma_memcpy_nd async [%async_token] (%results[] [] [], %arg7[] [] []) : (memref<32x32xi32, 2>, memref<32x32xi32>)
          %7 = air.execute [%6] {
            %subview = memref.subview %results[%4, %5] [16, 16] [1, 1] : memref<32x32xi32, 2> to memref<16x16xi32, strided<[32, 1], offset: ?>, 2>
            %9 = affine.for %arg8 = 0 to 16 step 4 iter_args(%arg9 = %c1_i32) -> (i32) {
              %10 = arith.addi %arg9, %c1_i32 : i32
              affine.yield %10 : i32
            }
            affine.for %arg8 = 0 to %c0_0 {
              %10 = memref.load %results[%arg8, %arg8] : memref<32x32xi32, 2>
            }
            func.call @external_kernel(%subview, %9) : (memref<16x16xi32, strided<[32, 1], offset: ?>, 2>, i32) -> ()
            %alloc = memref.alloc() : memref<32x32xi32, 2>
            memref.copy %results, %alloc : memref<32x32xi32, 2> to memref<32x32xi32, 2>
            memref.dealloc %alloc : memref<32x32xi32, 2>
          }
          %c16 = arith.constant 16 : index
          %c32 = arith.constant 32 : index
          %c1_1 = arith.constant 1 : index
          %8 = air.dma_memcpy_nd async [%7] (%arg7[%4, %5] [%c16, %c16] [%c32, %c1_1], %results[%4, %5] [%c16, %c16] [%c32, %c1_1]) : (memref<32x32xi32>, memref<32x32xi32, 2>)
          %async_token_1 = air.execute [%8] {
            memref.dealloc %results : memref<32x32xi32, 2>
          }
        }
      }
    }
    air.wait_all [%1]
    return
  }
}
