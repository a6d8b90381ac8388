// DMA tasks beyond the shim: a mem-tile task with a two-BD chain (own and east
// neighbour buffers, padding, an odd channel), a started aie.bd_chain whose
// arguments bind to sequence arguments, a packet BD, a task-queue push, a lock
// value and a runtime parameter. npu2 (AIE2P): neighbour address bases apply.
module {
  aie.device(npu2_2col) {
    %t00 = aie.tile(0, 0) {controller_id = #aie.packet_info<pkt_type = 0, pkt_id = 3>}
    %t10 = aie.tile(1, 0)
    %t01 = aie.tile(0, 1)
    %t11 = aie.tile(1, 1)
    %t02 = aie.tile(0, 2)
    %buf = aie.buffer(%t01) {address = 256 : i32, sym_name = "stage"} : memref<512xi32>
    %nbuf = aie.buffer(%t11) {address = 64 : i32, sym_name = "east"} : memref<64xi32>
    %rtp = aie.buffer(%t02) {address = 1024 : i32, sym_name = "rtp"} : memref<16xi32>
    %lk = aie.lock(%t01, 5) {init = 0 : i32}
    aie.shim_dma_allocation @in(%t10, MM2S, 1)
    aie.bd_chain @two(%x: memref<64xi16>, %y: memref<128xi16>) {
      aie.dma_bd(%x : memref<64xi16>, 0, 64)
      aie.next_bd ^bb1
    ^bb1:  // pred: ^bb0
      aie.dma_bd(%y : memref<128xi16>, 8, 32, [<size = 4, stride = 32>, <size = 8, stride = 1>])
      aie.end
    }
    aie.runtime_sequence(%a: memref<64xi16>, %n: i32, %b: memref<128xi16>) {
      %t = aiex.dma_configure_task(%t01, MM2S, 1) {
        aie.dma_bd(%buf : memref<512xi32>, 16, 64, [<size = 4, stride = 16>, <size = 16, stride = 1>], [<const_pad_before = 1, const_pad_after = 2>, <const_pad_before = 0, const_pad_after = 3>]) {bd_id = 30 : i32}
        aie.next_bd ^bb1
      ^bb1:
        aie.dma_bd(%nbuf : memref<64xi32>, 0, 64)
        aie.end
      } {issue_token = true, repeat_count = 2 : i32}
      aiex.dma_start_task(%t)
      aiex.dma_await_task(%t)
      %c = aiex.dma_start_bd_chain @two(%a, %b) : (memref<64xi16>, memref<128xi16>) on (%t00, MM2S, 0) {issue_token = true}
      aiex.dma_await_task(%c)
      %d = aiex.dma_configure_task_for @in {
        aie.dma_bd(%b : memref<128xi16>, 0, 128) {bd_id = 5 : i32, packet = #aie.packet_info<pkt_type = 1, pkt_id = 4>}
        aie.end
      }
      aiex.dma_start_task(%d)
      aiex.npu.push_queue (0, 1, S2MM : 4) {bd_id = 7 : i32, issue_token = true, repeat_count = 3 : i32}
      aiex.set_lock(%lk, 1)
      aiex.npu.rtp_write(@rtp, 2, -5)
    }
  }
}
