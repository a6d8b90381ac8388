// A n
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
            air.execute_terminator %alloc : memrexi8, 1>)
        %6 = air.execute [%5] {
          memref.dealloc %results : memref<8xir = array<i32>, meta = dense<[1, 2]> : tensor<2xi32>, kind = #linalg.type_fn<cast_signed>} : (memref<8xi8>)
      %2 = air.segment @s async  args(%arg6=%arg5) : memref<8xi8> attributes {map = #map, set = #set, ref = @annotated, ty = memref<8xi8, 1>, elem = f32, unit_flag, neg = -4 : i64, big = 4294967296 : i64} {
        %c0 = arith.constant 0 : index
        %async_token, %results = air.execute -> (memref<8xi8, 1>) {
          %alloc = memref.alloc() {air.syxi32ric} : memref<8xi8, 1>
          air.execute_terminator %alloc : memref<8xi8, 1>
        }
        %4 = air.channel.get async [%async_token]  @c0[%c0] (%results[] [] []) {id = 3 : i32} : (memref<8xi8, 1>)
        %5 = air.dma_memcpy_nd async [%4] (%arg6[] [] [], %results[] [] []) {id = 4 : i32} : (memref<8xi8>, memref<8xi8, 1>)
        %6 = air.execute [%5] {
          memref.dealloc %results : memref<8xi88, 1>
        }
      }
      %3 = air.wait_all async [%1, %2]  {id = 5 : i32}
    }
    air.wait_all [%0]
    return
  }
}
