aie.device(npu1_1col) {
  aie.shim_dma_allocation @s(S2MM, 1, 0)
  aie.runtime_sequence(%a0: memref<8xi32>, %a1: memref<8xi32>, %a2: memref<8xi32>,
                       %a3: memref<8xi32>, %a4: memref<8xi32>, %a5: memref<32xi8>) {
    aiex.npu.dma_memcpy_nd(%a5[0, 0, 0, 8][1, 1, 1, 16][0, 0, 0, 1]) {id = 15 : i64, metadata = @s} : memref<32xi8>
    aiex.npu.address_patch {addr = 118788 : ui32, arg_idx = 4 : i32, arg_plus = 4 : i32}
    aiex.npu.dma_wait {symbol = @s}
  }
}
