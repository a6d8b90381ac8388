// The spec's MI3xx four levels (section 4.2) at MI300X's size: a unit launch (the
// whole device), an outer segment of 8 with backend-granularity=XCD (one instance
// per XCD), an inner segment of 38 over the CUs of that XCD, and a herd of 32 PEs
// (a CU's wave slots). CU instance (x, c) owns block x * 38 + c of 32 elements: it
// stages the block in an L2 tile (the CU's LDS), each PE squares one element
// through L1 and writes it back, and the segment records x, c and the two
// segment sizes in row `block` of %ids.
func.func @four_level(%a: memref<9728xf32>, %b: memref<9728xf32>, %ids: memref<304x4xi32>) {
  air.launch () in () args(%A=%a, %B=%b, %I=%ids) : memref<9728xf32>, memref<9728xf32>, memref<304x4xi32> {
    %c8 = arith.constant 8 : index
    air.segment @xcd (%x) in (%nx=%c8) args(%SA=%A, %SB=%B, %SI=%I) : memref<9728xf32>, memref<9728xf32>, memref<304x4xi32> backend-granularity=XCD {
      %c38 = arith.constant 38 : index
      air.segment @cu (%c) in (%nc=%c38) args(%x2=%x, %nx2=%nx, %TA=%SA, %TB=%SB, %TI=%SI) : index, index, memref<9728xf32>, memref<9728xf32>, memref<304x4xi32> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c3 = arith.constant 3 : index
        %c32 = arith.constant 32 : index
        %row = arith.muli %x2, %nc : index
        %blk = arith.addi %row, %c : index
        %base = arith.muli %blk, %c32 : index
        %tile = memref.alloc() : memref<32xf32, 1>
        air.dma_memcpy_nd (%tile[] [] [], %TA[%base] [%c32] [%c1]) : (memref<32xf32, 1>, memref<9728xf32>)
        %xi = arith.index_cast %x2 : index to i32
        %ci = arith.index_cast %c : index to i32
        %nxi = arith.index_cast %nx2 : index to i32
        %nci = arith.index_cast %nc : index to i32
        memref.store %xi, %TI[%blk, %c0] : memref<304x4xi32>
        memref.store %ci, %TI[%blk, %c1] : memref<304x4xi32>
        memref.store %nxi, %TI[%blk, %c2] : memref<304x4xi32>
        memref.store %nci, %TI[%blk, %c3] : memref<304x4xi32>
        air.herd @pes tile (%tx, %ty) in (%sx=%c32, %sy=%c1) args(%L=%tile, %HB=%TB, %hb=%base) : memref<32xf32, 1>, memref<9728xf32>, index {
          %c0h = arith.constant 0 : index
          %c1h = arith.constant 1 : index
          %p = memref.alloc() : memref<1xf32, 2>
          air.dma_memcpy_nd (%p[] [] [], %L[%tx] [%c1h] [%c1h]) : (memref<1xf32, 2>, memref<32xf32, 1>)
          %v = memref.load %p[%c0h] : memref<1xf32, 2>
          %sq = arith.mulf %v, %v : f32
          memref.store %sq, %p[%c0h] : memref<1xf32, 2>
          %i = arith.addi %hb, %tx : index
          air.dma_memcpy_nd (%HB[%i] [%c1h] [%c1h], %p[] [] []) : (memref<9728xf32>, memref<1xf32, 2>)
          memref.dealloc %p : memref<1xf32, 2>
        }
        memref.dealloc %tile : memref<32xf32, 1>
      }
    }
  }
  return
}
