// Nested segments with small iteration spaces, no XCD granularity: a launch of 2,
// an outer segment of 2 x 2, an inner segment of 3, a herd of 16 PEs: 2 x 12
// workgroups, one per inner segment instance. Instance (l, i, j, k) owns block
// ((l * 2 + i) * 2 + j) * 3 + k of 16 elements; its PEs write a * (block + 1)
// through an L2 tile, and the segment records its ids and sizes in row `block`
// of %ids (l, i, j, k, ni, nj, nk, 0).
func.func @nested(%a: memref<384xf32>, %b: memref<384xf32>, %ids: memref<24x8xi32>) {
  %c2 = arith.constant 2 : index
  air.launch (%l) in (%nl=%c2) args(%A=%a, %B=%b, %I=%ids) : memref<384xf32>, memref<384xf32>, memref<24x8xi32> {
    %c2o = arith.constant 2 : index
    air.segment @outer (%i, %j) in (%ni=%c2o, %nj=%c2o) args(%l1=%l, %SA=%A, %SB=%B, %SI=%I) : index, memref<384xf32>, memref<384xf32>, memref<24x8xi32> {
      %c3 = arith.constant 3 : index
      %li = arith.muli %l1, %ni : index
      %lij0 = arith.addi %li, %i : index
      %lij1 = arith.muli %lij0, %nj : index
      %lij = arith.addi %lij1, %j : index
      air.segment @inner (%k) in (%nk=%c3) args(%l2=%l1, %i2=%i, %j2=%j, %ni2=%ni, %nj2=%nj, %o=%lij, %TA=%SA, %TB=%SB, %TI=%SI) : index, index, index, index, index, index, memref<384xf32>, memref<384xf32>, memref<24x8xi32> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c16 = arith.constant 16 : index
        %o3 = arith.muli %o, %nk : index
        %blk = arith.addi %o3, %k : index
        %base = arith.muli %blk, %c16 : index
        %tile = memref.alloc() : memref<16xf32, 1>
        air.dma_memcpy_nd (%tile[] [] [], %TA[%base] [%c16] [%c1]) : (memref<16xf32, 1>, memref<384xf32>)
        %cc2 = arith.constant 2 : index
        %cc3 = arith.constant 3 : index
        %cc4 = arith.constant 4 : index
        %cc5 = arith.constant 5 : index
        %cc6 = arith.constant 6 : index
        %cc7 = arith.constant 7 : index
        %v0 = arith.index_cast %l2 : index to i32
        %v1 = arith.index_cast %i2 : index to i32
        %v2 = arith.index_cast %j2 : index to i32
        %v3 = arith.index_cast %k : index to i32
        %v4 = arith.index_cast %ni2 : index to i32
        %v5 = arith.index_cast %nj2 : index to i32
        %v6 = arith.index_cast %nk : index to i32
        %z = arith.constant 0 : i32
        memref.store %v0, %TI[%blk, %c0] : memref<24x8xi32>
        memref.store %v1, %TI[%blk, %c1] : memref<24x8xi32>
        memref.store %v2, %TI[%blk, %cc2] : memref<24x8xi32>
        memref.store %v3, %TI[%blk, %cc3] : memref<24x8xi32>
        memref.store %v4, %TI[%blk, %cc4] : memref<24x8xi32>
        memref.store %v5, %TI[%blk, %cc5] : memref<24x8xi32>
        memref.store %v6, %TI[%blk, %cc6] : memref<24x8xi32>
        memref.store %z, %TI[%blk, %cc7] : memref<24x8xi32>
        air.herd @pes tile (%tx, %ty) in (%sx=%c16, %sy=%c1) args(%L=%tile, %HB=%TB, %hb=%base, %hk=%blk) : memref<16xf32, 1>, memref<384xf32>, index, index {
          %c0h = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %p = memref.alloc() : memref<1xf32, 2>
          air.dma_memcpy_nd (%p[] [] [], %L[%tx] [%c1h] [%c1h]) : (memref<1xf32, 2>, memref<16xf32, 1>)
          %v = memref.load %p[%c0h] : memref<1xf32, 2>
          %k1 = arith.addi %hk, %c1h : index
          %ki = arith.index_cast %k1 : index to i32
          %kf = arith.sitofp %ki : i32 to f32
          %r = arith.mulf %v, %kf : f32
          memref.store %r, %p[%c0h] : memref<1xf32, 2>
          %e = arith.addi %hb, %tx : index
          air.dma_memcpy_nd (%HB[%e] [%c1h] [%c1h], %p[] [] []) : (memref<384xf32>, memref<1xf32, 2>)
          memref.dealloc %p : memref<1xf32, 2>
        }
        memref.dealloc %tile : memref<16xf32, 1>
      }
    }
  }
  return
}
