// A whole lowered design as mlir-aie prints it after buffer/lock/flow lowering:
// tiles, locks, buffers, a core with a loop, DMA programs with blocks, flows,
// packet flows, a kernel declaration and two runtime-sequence transfers. Only the
// sequence becomes instructions; everything else must be read and kept.
#map = affine_map<(d0) -> (d0 * 2)>
module attributes {llvm.target_triple = "aie2"} {
  aie.device(npu1_2col) {
    memref.global "public" @in0_cons : memref<16xi32>
    memref.global "private" constant @patch_words : memref<4xi32> = dense<[1, -1, 255, 65536]>
    func.func private @scale_i32(memref<16xi32>, memref<16xi32>, i32) attributes {link_with = "scale.o"}
    %tile_0_0 = aie.tile(0, 0) {controller_id = #aie.packet_info<pkt_type = 0, pkt_id = 15>}
    %tile_1_0 = aie.tile(1, 0)
    %tile_0_1 = aie.tile(0, 1)
    %tile_0_2 = aie.tile(0, 2)
    %lock_0_2 = aie.lock(%tile_0_2, 0) {init = 2 : i32, sym_name = "in_prod_lock"}
    %lock_0_2_0 = aie.lock(%tile_0_2, 1) {init = 0 : i32, sym_name = "in_cons_lock"}
    %buf_a = aie.buffer(%tile_0_2) {address = 1024 : i32, mem_bank = 0 : i32, sym_name = "buf_a"} : memref<16xi32>
    %buf_b = aie.buffer(%tile_0_2) {address = 2048 : i32, sym_name = "buf_b"} : memref<16xi32>
    aie.flow(%tile_0_0, DMA : 0, %tile_0_2, DMA : 0)
    aie.flow(%tile_0_2, DMA : 0, %tile_1_0, DMA : 1)
    aie.packet_flow(15) {
      aie.packet_source<%tile_0_0, Ctrl : 0>
      aie.packet_dest<%tile_0_0, South : 0>
    } {keep_pkt_header = true}
    %core_0_2 = aie.core(%tile_0_2) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %c3_i32 = arith.constant 3 : i32
      scf.for %arg0 = %c0 to %c4 step %c1 {
        aie.use_lock(%lock_0_2_0, AcquireGreaterEqual, 1)
        func.call @scale_i32(%buf_a, %buf_b, %c3_i32) : (memref<16xi32>, memref<16xi32>, i32) -> ()
        aie.use_lock(%lock_0_2, Release, 1)
      }
      aie.end
    } {link_with = "scale.o"}
    %mem_0_2 = aie.mem(%tile_0_2) {
      %0 = aie.dma_start(S2MM, 0, ^bb1, ^bb2)
    ^bb1:  // 2 preds: ^bb0, ^bb1
      aie.use_lock(%lock_0_2, AcquireGreaterEqual, 1)
      aie.dma_bd(%buf_a : memref<16xi32>, 0, 16) {bd_id = 0 : i32, next_bd_id = 0 : i32}
      aie.use_lock(%lock_0_2_0, Release, 1)
      aie.next_bd ^bb1
    ^bb2:  // pred: ^bb0
      aie.end
    }
    aie.shim_dma_allocation @in0(MM2S, 0, 0)
    aie.shim_dma_allocation @out0(%tile_1_0, S2MM, 1)
    aiex.runtime_sequence @seq(%a: memref<256xi32>, %n: i32, %b: memref<16x16xi32>) {
      %c0_i64 = arith.constant 0 : i64
      %c1_i64 = arith.constant 1 : i64
      %c16_i64 = arith.constant 16 : i64
      %w = memref.get_global @patch_words : memref<4xi32>
      aiex.npu.write32 {address = 119316 : ui32, column = 1 : i32, row = 0 : i32, value = 2 : ui32}
      aiex.npu.maskwrite32 {address = 0x1D200 : ui32, mask = 0x1F00 : ui32, value = 3840 : ui32}
      aiex.npu.blockwrite(%w) {address = 0xA0000 : ui32, column = 0 : i32, row = 1 : i32} : memref<4xi32>
      aiex.npu.dma_memcpy_nd(%c0_i64, %c0_i64, %a[%c0_i64, %c0_i64, %c0_i64, %c16_i64][%c1_i64, %c1_i64, %c1_i64, %c16_i64][%c0_i64, %c0_i64, %c0_i64, %c1_i64]) {id = 0 : i64, metadata = @in0, issue_token = true} : memref<256xi32>
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][4, 2, 8, 16][0, 128, 16, 1]) {id = 3 : i64, metadata = @out0, burst_length = 128 : i32, packet = #aie.packet_info<pkt_type = 2, pkt_id = 7>} : memref<16x16xi32>
      aiex.npu.writebd {bd_id = 5 : i32, buffer_length = 1024 : i32, buffer_offset = 64 : i32, column = 0 : i32, d0_size = 8 : i32, d0_stride = 0 : i32, d0_zero_after = 1 : i32, d0_zero_before = 2 : i32, d1_size = 4 : i32, d1_stride = 7 : i32, d1_zero_after = 0 : i32, d1_zero_before = 0 : i32, d2_size = 2 : i32, d2_stride = 31 : i32, d2_zero_after = 0 : i32, d2_zero_before = 0 : i32, enable_packet = 0 : i32, iteration_current = 0 : i32, iteration_size = 1 : i32, iteration_stride = 1023 : i32, lock_acq_enable = 1 : i32, lock_acq_id = 65 : i32, lock_acq_val = -1 : i32, lock_rel_id = 64 : i32, lock_rel_val = 1 : i32, next_bd = 6 : i32, out_of_order_id = 0 : i32, packet_id = 0 : i32, packet_type = 0 : i32, row = 1 : i32, use_next_bd = 1 : i32, valid_bd = 1 : i32}
      aiex.npu.address_patch {addr = 119300 : ui32, arg_idx = 1 : i32, arg_plus = 8 : i32}
      aiex.npu.sync {channel = 1 : i32, column = 1 : i32, column_num = 1 : i32, direction = 0 : i32, row = 0 : i32, row_num = 1 : i32}
      aiex.npu.dma_wait {symbol = @out0}
      aiex.npu.load_pdi {id = 2 : i32, size = 1024 : i32, address = 0xabc12345678 : i64}
      aiex.npu.preempt {level = 1 : ui8}
      aiex.npu.read_reg {address = 0x1D204 : ui32, column = 1 : i32, row = 0 : i32}
    }
  } {sym_name = "design"}
}
