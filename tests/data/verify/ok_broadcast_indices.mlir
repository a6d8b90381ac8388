// RULE: none
// Channel indices of broadcast channels as mlir-air writes them. A put on a
// [1, 1] channel may omit its indices whatever the broadcast_shape (puts index
// the channel's own dimensions); a get indexes the broadcast_shape; and where
// both the channel and the broadcast dimension are 1, the get's index (here the
// tile's row, picking one of two channels with affine.if) is ignored.
#set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0)>
air.channel @bcast [1, 1] {broadcast_shape = [2, 4]}
air.channel @row0 [1, 1] {broadcast_shape = [1, 4]}
air.channel @row1 [1, 1] {broadcast_shape = [1, 4]}
func.func @f(%arg0: memref<64xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%a) in (%na=%c1) args(%l3=%arg0) : memref<64xi32> {
    %p0 = air.channel.put async @bcast[] (%l3[] [] []) : (memref<64xi32>)
    %p1 = air.channel.put async @row0[] (%l3[] [] []) : (memref<64xi32>)
    %p2 = air.channel.put async @row1[] (%l3[] [] []) : (memref<64xi32>)
    air.segment @s {
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %h = air.herd @h async tile (%x, %y) in (%sx=%c2, %sy=%c4) {
        %b = memref.alloc() : memref<64xi32, 2>
        air.channel.get @bcast[%x, %y] (%b[] [] []) : (memref<64xi32, 2>)
        affine.if #set(%x, %y) {
          air.channel.get @row0[%x, %y] (%b[] [] []) : (memref<64xi32, 2>)
        } else {
          air.channel.get @row1[%x, %y] (%b[] [] []) : (memref<64xi32, 2>)
        }
        memref.dealloc %b : memref<64xi32, 2>
      }
    }
    air.wait_all [%p0, %p1, %p2]
  }
  return
}
