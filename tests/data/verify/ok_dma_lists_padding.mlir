// RULE: none
// A padded transfer lands more elements than it reads: 8x6 read from L2 with one
// column of padding before and one after each row fills an 8x8 L1 tile.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c1 = arith.constant 1 : index
      %l2 = memref.alloc() : memref<8x6xi32, 1>
      air.herd @h tile (%x) in (%sx=%c1) args(%src=%l2) : memref<8x6xi32, 1> {
        %l1 = memref.alloc() : memref<8x8xi32, 2>
        air.dma_memcpy_nd (%l1[] [] [], %src[0, 0] [8, 6] [6, 1]) {pad_after = array<i32: 0, 1>, pad_before = array<i32: 0, 1>} : (memref<8x8xi32, 2>, memref<8x6xi32, 1>)
      }
    }
  }
  return
}
