// RULE: dma-lists
// Padding is counted, and still has to add up: 8x6 with two padding columns per
// row is 64 elements, not the 80 the destination holds.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<8x6xi32, 1>
      air.herd @h tile (%x) in (%sx=%c1) args(%src=%l2) : memref<8x6xi32, 1> {
        %l1 = memref.alloc() : memref<8x10xi32, 2>
        air.dma_memcpy_nd (%l1[] [] [], %src[0, 0] [8, 6] [6, 1]) {pad_after = array<i32: 0, 1>, pad_before = array<i32: 0, 1>} : (memref<8x10xi32, 2>, memref<8x6xi32, 1>) // ERROR
      }
    }
  }
  return
}
