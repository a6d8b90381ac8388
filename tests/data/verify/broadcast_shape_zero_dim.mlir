// RULE: broadcast-shape
air.channel @c [0, 4] // ERROR
