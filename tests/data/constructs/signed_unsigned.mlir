// Signed and unsigned element types: ui8 data moved L3 -> L1 -> L3 through
// channels, si16 buffers copied with linalg.copy, and element loads and stores of
// ui8 / si8 values (storage types: arith works on signless integers only).
// VERIFY: ok
// RUN: @move_u8
air.channel @chan_in [1, 1]
air.channel @chan_out [1, 1]
func.func @move_u8(%arg0: memref<64xui8>, %arg1: memref<64xui8>, %arg2: memref<32xsi16>, %arg3: memref<32xsi16>) {
  %c1 = arith.constant 1 : index
  %0 = air.launch async (%arg4, %arg5) in (%arg6=%c1, %arg7=%c1) args(%arg8=%arg0, %arg9=%arg1, %arg10=%arg2, %arg11=%arg3) : memref<64xui8>, memref<64xui8>, memref<32xsi16>, memref<32xsi16> {
    %1 = air.channel.put async  @chan_in[] (%arg8[] [] []) : (memref<64xui8>)
    %2 = air.channel.get async  @chan_out[] (%arg9[] [] []) : (memref<64xui8>)
    %3 = air.segment @seg_0 async  args(%arg12=%arg10, %arg13=%arg11) : memref<32xsi16>, memref<32xsi16> {
      %c1_0 = arith.constant 1 : index
      %4 = air.herd @herd_0 async  tile (%arg14, %arg15) in (%arg16=%c1_0, %arg17=%c1_0) args(%arg18=%arg12, %arg19=%arg13) : memref<32xsi16>, memref<32xsi16> {
        %c0 = arith.constant 0 : index
        %c63 = arith.constant 63 : index
        %alloc = memref.alloc() : memref<64xui8, 2>
        air.channel.get  @chan_in[] (%alloc[] [] []) : (memref<64xui8, 2>)
        %5 = memref.load %alloc[%c0] : memref<64xui8, 2>
        %6 = memref.load %alloc[%c63] : memref<64xui8, 2>
        memref.store %6, %alloc[%c0] : memref<64xui8, 2>
        memref.store %5, %alloc[%c63] : memref<64xui8, 2>
        air.channel.put  @chan_out[] (%alloc[] [] []) : (memref<64xui8, 2>)
        %alloc_1 = memref.alloc() : memref<32xsi16, 2>
        air.dma_memcpy_nd (%alloc_1[] [] [], %arg18[] [] []) : (memref<32xsi16, 2>, memref<32xsi16>)
        %alloc_2 = memref.alloc() : memref<32xsi16, 2>
        linalg.copy ins(%alloc_1 : memref<32xsi16, 2>) outs(%alloc_2 : memref<32xsi16, 2>)
        air.dma_memcpy_nd (%arg19[] [] [], %alloc_2[] [] []) : (memref<32xsi16>, memref<32xsi16, 2>)
        memref.dealloc %alloc : memref<64xui8, 2>
        memref.dealloc %alloc_1 : memref<32xsi16, 2>
        memref.dealloc %alloc_2 : memref<32xsi16, 2>
      }
    }
    %7 = air.wait_all async [%1, %2, %3]
  }
  air.wait_all [%0]
  return
}
