// RULE: channel-type
air.channel @c [1] {channel_type = "dma_stream"} // ERROR
