// backend-granularity=XCD with fewer instances than XCDs, under a launch with an
// iteration space and over a 2-D inner segment: a launch of 2, an XCD segment of 3
// (MI300A, gfx940, has 6 XCDs: the grid is padded to 6 per row and the padding
// workgroups end at once), an inner segment of 2 x 3 CUs, a 4 x 2 herd. Instance
// (l, x, i, j) owns block ((l * 3 + x) * 2 + i) * 3 + j of 8 elements; PE (tx, ty)
// writes a[e] * a[e] + block for element e = block * 8 + ty * 4 + tx, and the
// segment records l, x, i, j, nx, ni, nj in row `block` of %ids.
func.func @padded(%a: memref<288xf32>, %b: memref<288xf32>, %ids: memref<36x8xi32>) {
  %c2 = arith.constant 2 : index
  air.launch (%l) in (%nl=%c2) args(%A=%a, %B=%b, %I=%ids) : memref<288xf32>, memref<288xf32>, memref<36x8xi32> {
    %c3 = arith.constant 3 : index
    air.segment @xcd (%x) in (%nx=%c3) args(%l1=%l, %SA=%A, %SB=%B, %SI=%I) : index, memref<288xf32>, memref<288xf32>, memref<36x8xi32> backend-granularity=XCD {
      %c2i = arith.constant 2 : index
      %c3i = arith.constant 3 : index
      air.segment @cu (%i, %j) in (%ni=%c2i, %nj=%c3i) args(%l2=%l1, %x2=%x, %nx2=%nx, %TA=%SA, %TB=%SB, %TI=%SI) : index, index, index, memref<288xf32>, memref<288xf32>, memref<36x8xi32> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c2s = arith.constant 2 : index
        %c3s = arith.constant 3 : index
        %c4 = arith.constant 4 : index
        %c5 = arith.constant 5 : index
        %c6 = arith.constant 6 : index
        %c7 = arith.constant 7 : index
        %c8 = arith.constant 8 : index
        %lx0 = arith.muli %l2, %nx2 : index
        %lx = arith.addi %lx0, %x2 : index
        %r0 = arith.muli %lx, %ni : index
        %r1 = arith.addi %r0, %i : index
        %r2 = arith.muli %r1, %nj : index
        %blk = arith.addi %r2, %j : index
        %base = arith.muli %blk, %c8 : index
        %tile = memref.alloc() : memref<2x4xf32, 1>
        air.dma_memcpy_nd (%tile[] [] [], %TA[%base] [%c8] [%c1]) : (memref<2x4xf32, 1>, memref<288xf32>)
        %v0 = arith.index_cast %l2 : index to i32
        %v1 = arith.index_cast %x2 : index to i32
        %v2 = arith.index_cast %i : index to i32
        %v3 = arith.index_cast %j : index to i32
        %v4 = arith.index_cast %nx2 : index to i32
        %v5 = arith.index_cast %ni : index to i32
        %v6 = arith.index_cast %nj : index to i32
        %z = arith.constant -1 : i32
        memref.store %v0, %TI[%blk, %c0] : memref<36x8xi32>
        memref.store %v1, %TI[%blk, %c1] : memref<36x8xi32>
        memref.store %v2, %TI[%blk, %c2s] : memref<36x8xi32>
        memref.store %v3, %TI[%blk, %c3s] : memref<36x8xi32>
        memref.store %v4, %TI[%blk, %c4] : memref<36x8xi32>
        memref.store %v5, %TI[%blk, %c5] : memref<36x8xi32>
        memref.store %v6, %TI[%blk, %c6] : memref<36x8xi32>
        memref.store %z, %TI[%blk, %c7] : memref<36x8xi32>
        air.herd @pes tile (%tx, %ty) in (%sx=%c4, %sy=%c2s) args(%L=%tile, %HB=%TB, %hb=%base, %hk=%blk) : memref<2x4xf32, 1>, memref<288xf32>, index, index {
          %c0h = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %c4h = arith.constant 4 : index
          %p = memref.alloc() : memref<1xf32, 2>
          air.dma_memcpy_nd (%p[] [] [], %L[%ty, %tx] [%c1h, %c1h] [%c4h, %c1h]) : (memref<1xf32, 2>, memref<2x4xf32, 1>)
          %v = memref.load %p[%c0h] : memref<1xf32, 2>
          %ki = arith.index_cast %hk : index to i32
          %kf = arith.sitofp %ki : i32 to f32
          %sq = arith.mulf %v, %v : f32
          %r = arith.addf %sq, %kf : f32
          memref.store %r, %p[%c0h] : memref<1xf32, 2>
          %row = arith.muli %ty, %c4h : index
          %e0 = arith.addi %hb, %row : index
          %e = arith.addi %e0, %tx : index
          air.dma_memcpy_nd (%HB[%e] [%c1h] [%c1h], %p[] [] []) : (memref<288xf32>, memref<1xf32, 2>)
          memref.dealloc %p : memref<1xf32, 2>
        }
        memref.dealloc %tile : memref<2x4xf32, 1>
      }
    }
  }
  return
}
