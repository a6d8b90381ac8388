// RULE: channel-type
// mlir-air's refeed count must be an integer in [1, 2^31-1], in either spelling.
air.channel @zero [1] {air.refeed_count = 0 : i32} // ERROR
air.channel @huge [1] {refeed_count = 2147483648 : i64} // ERROR
air.channel @text [1] {air.refeed_count = "twice"} // ERROR
air.channel @ok [1] {air.refeed_count = 2147483647 : i32}
