// RULE: channel-type
// packet_ids route packet-switched streams: only on npu_dma_packet channels,
// each id in [0, 31], none repeated.
air.channel @stream [2] {packet_ids = array<i32: 0, 1>} // ERROR
air.channel @cascade [1] {channel_type = "npu_cascade", packet_ids = [3]} // ERROR
air.channel @range [2] {channel_type = "npu_dma_packet", packet_ids = array<i32: 4, 32>} // ERROR
air.channel @negative [1] {channel_type = "npu_dma_packet", packet_ids = [-1]} // ERROR
air.channel @repeat [3] {channel_type = "npu_dma_packet", packet_ids = array<i32: 7, 9, 7>} // ERROR
air.channel @ok [3] {channel_type = "npu_dma_packet", packet_ids = array<i32: 0, 9, 31>}
