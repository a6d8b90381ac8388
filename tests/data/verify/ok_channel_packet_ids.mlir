// RULE: none
// Packet ids and refeed counts where they are valid.
air.channel @pkt [2, 2] {channel_type = "npu_dma_packet", packet_ids = array<i32: 0, 1, 2, 31>}
air.channel @one [1] {channel_type = "npu_dma_packet", packet_ids = 5 : i32, air.refeed_count = 4 : i32}
air.channel @refeed [1] {refeed_count = 1 : i64}
