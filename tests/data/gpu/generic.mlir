// linalg.generic in GPU kernels: a launch of 2 over 8x16 blocks of %a and %b.
// The segment scales its L2 tile of %a by the launch index + 1 (a generic outside
// the herd: one work-item, then a barrier); each of the 8 PEs (one row, a 1x16
// L1 buffer) adds its row of %b to the scaled row (elementwise, two inputs),
// writes it to %c, and sums it into %s[row] (a reduction, in order).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @generic(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>, %s: memref<16xf32>) {
  %c2 = arith.constant 2 : index
  air.launch (%l) in (%nl=%c2) args(%A=%a, %B=%b, %C=%c, %S=%s) : memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>, memref<16xf32> {
    air.segment @seg args(%sl=%l, %SA=%A, %SB=%B, %SC=%C, %SS=%S) : index, memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>, memref<16xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %r0 = arith.muli %sl, %c8 : index
      %tile = memref.alloc() : memref<8x16xf32, 1>
      air.dma_memcpy_nd (%tile[] [] [], %SA[%r0, %c0] [%c8, %c16] [%c16, %c1]) : (memref<8x16xf32, 1>, memref<16x16xf32>)
      %l1 = arith.addi %sl, %c1 : index
      %li = arith.index_cast %l1 : index to i32
      %k = arith.sitofp %li : i32 to f32
      linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x16xf32, 1>) {
      ^bb0(%t: f32):
        %m = arith.mulf %t, %k : f32
        linalg.yield %m : f32
      }
      air.herd @rows tile (%tx, %ty) in (%sx=%c8, %sy=%c1) args(%T=%tile, %HB=%SB, %HC=%SC, %HS=%SS, %hr=%r0) : memref<8x16xf32, 1>, memref<16x16xf32>, memref<16x16xf32>, memref<16xf32>, index {
        %z = arith.constant 0 : index
        %one = arith.constant 1 : index
        %n16 = arith.constant 16 : index
        %row = arith.addi %hr, %tx : index
        %x = memref.alloc() : memref<1x16xf32, 2>
        %y = memref.alloc() : memref<1x16xf32, 2>
        %o = memref.alloc() : memref<1x16xf32, 2>
        %acc = memref.alloc() : memref<1xf32, 2>
        air.dma_memcpy_nd (%x[] [] [], %T[%tx, %z] [%one, %n16] [%n16, %one]) : (memref<1x16xf32, 2>, memref<8x16xf32, 1>)
        air.dma_memcpy_nd (%y[] [] [], %HB[%row, %z] [%one, %n16] [%n16, %one]) : (memref<1x16xf32, 2>, memref<16x16xf32>)
        linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<1x16xf32, 2>, memref<1x16xf32, 2>) outs(%o : memref<1x16xf32, 2>) {
        ^bb0(%p: f32, %q: f32, %r: f32):
          %sum = arith.addf %p, %q : f32
          linalg.yield %sum : f32
        }
        %zero = arith.constant 0.0 : f32
        linalg.fill ins(%zero : f32) outs(%acc : memref<1xf32, 2>)
        linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%o : memref<1x16xf32, 2>) outs(%acc : memref<1xf32, 2>) {
        ^bb0(%v: f32, %w: f32):
          %t2 = arith.addf %w, %v : f32
          linalg.yield %t2 : f32
        }
        air.dma_memcpy_nd (%HC[%row, %z] [%one, %n16] [%n16, %one], %o[] [] []) : (memref<16x16xf32>, memref<1x16xf32, 2>)
        air.dma_memcpy_nd (%HS[%row] [%one] [%one], %acc[] [] []) : (memref<16xf32>, memref<1xf32, 2>)
      }
    }
  }
  return
}
