// RULE: channel-type
air.channel @c [1] {depth = 0} // ERROR
