// Padded transfers (pad_before / pad_after, as mlir-air writes them for mem-tile
// DMAs): the source's elements land with zeros around each padded dimension.
// An 8x6 L2 tile reaches an 8x8 L1 tile with a zero column on each side of every
// row through air.dma_memcpy_nd (its pad_after lists three dimensions: the one
// in front of the 2-d pattern is a unit dimension), and a 10x8 tile with a zero
// border through a channel put; a get cannot pad (the sending DMA inserts it).
// VERIFY: ok
// RUN: @padded
// RUN-ERROR: @padded_get
module {
  air.channel @pad_chan [1, 1]
  air.channel @get_chan [1, 1]
  func.func @padded(%arg0: memref<8x6xi32>, %arg1: memref<8x8xi32>, %arg2: memref<10x8xi32>) {
    %c1 = arith.constant 1 : index
    air.launch (%lx, %ly) in (%lsx=%c1, %lsy=%c1) args(%a=%arg0, %b=%arg1, %c=%arg2) : memref<8x6xi32>, memref<8x8xi32>, memref<10x8xi32> {
      air.segment @seg args(%a2=%a, %b2=%b, %c2=%c) : memref<8x6xi32>, memref<8x8xi32>, memref<10x8xi32> {
        %c1_0 = arith.constant 1 : index
        %l2 = memref.alloc() : memref<8x6xi32, 1>
        air.dma_memcpy_nd (%l2[] [] [], %a2[] [] []) : (memref<8x6xi32, 1>, memref<8x6xi32>)
        %t = air.channel.put async @pad_chan[] (%l2[0, 0] [8, 6] [6, 1]) {pad_after = array<i32: 1, 1>, pad_before = array<i32: 1, 1>} : (memref<8x6xi32, 1>)
        air.herd @h tile (%tx, %ty) in (%sx=%c1_0, %sy=%c1_0) args(%src=%l2, %out=%b2, %out2=%c2) : memref<8x6xi32, 1>, memref<8x8xi32>, memref<10x8xi32> {
          %l1 = memref.alloc() : memref<8x8xi32, 2>
          air.dma_memcpy_nd (%l1[] [] [], %src[0, 0] [8, 6] [6, 1]) {pad_after = array<i32: 0, 0, 1>, pad_before = array<i32: 0, 1>} : (memref<8x8xi32, 2>, memref<8x6xi32, 1>)
          air.dma_memcpy_nd (%out[] [] [], %l1[] [] []) : (memref<8x8xi32>, memref<8x8xi32, 2>)
          %l1b = memref.alloc() : memref<10x8xi32, 2>
          air.channel.get @pad_chan[%tx, %ty] (%l1b[] [] []) : (memref<10x8xi32, 2>)
          air.dma_memcpy_nd (%out2[] [] [], %l1b[] [] []) : (memref<10x8xi32>, memref<10x8xi32, 2>)
          memref.dealloc %l1 : memref<8x8xi32, 2>
          memref.dealloc %l1b : memref<10x8xi32, 2>
        }
        air.wait_all [%t]
        memref.dealloc %l2 : memref<8x6xi32, 1>
      }
    }
    return
  }
  func.func @padded_get(%arg0: memref<8x6xi32>, %arg1: memref<8x8xi32>) {
    %c1 = arith.constant 1 : index
    air.launch (%lx, %ly) in (%lsx=%c1, %lsy=%c1) args(%a=%arg0, %b=%arg1) : memref<8x6xi32>, memref<8x8xi32> {
      air.segment @seg args(%a2=%a, %b2=%b) : memref<8x6xi32>, memref<8x8xi32> {
        %c1_0 = arith.constant 1 : index
        %l2 = memref.alloc() : memref<8x6xi32, 1>
        air.dma_memcpy_nd (%l2[] [] [], %a2[] [] []) : (memref<8x6xi32, 1>, memref<8x6xi32>)
        %t = air.channel.put async @get_chan[] (%l2[] [] []) : (memref<8x6xi32, 1>)
        air.herd @h tile (%tx, %ty) in (%sx=%c1_0, %sy=%c1_0) args(%out=%b2) : memref<8x8xi32> {
          %l1 = memref.alloc() : memref<8x8xi32, 2>
          air.channel.get @get_chan[%tx, %ty] (%l1[0, 1] [8, 6] [8, 1]) {pad_after = array<i32: 0, 1>, pad_before = array<i32: 0, 1>} : (memref<8x8xi32, 2>)
          air.dma_memcpy_nd (%out[] [] [], %l1[] [] []) : (memref<8x8xi32>, memref<8x8xi32, 2>)
          memref.dealloc %l1 : memref<8x8xi32, 2>
        }
        air.wait_all [%t]
        memref.dealloc %l2 : memref<8x6xi32, 1>
      }
    }
    return
  }
}
