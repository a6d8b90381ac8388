// RULE: broadcast-shape
air.channel @c [1, 1] {broadcast_shape = [4]} // ERROR
