// RULE: broadcast-shape
// Dimension 0 is 2: it cannot broadcast to 4 (only 1 broadcasts).
air.channel @c [2, 1] {broadcast_shape = [4, 4]} // ERROR
