// RULE: none
air.channel @a [1, 1] {broadcast_shape = [1, 4]}
air.channel @b [2, 1] {broadcast_shape = [2, 4]}
air.channel @c [4, 4] {broadcast_shape = [4 : index, 4 : index]}
