// RULE: symbol
// LINE: 5
// Two channels named @c: the second one is reported.
air.channel @c [1]
air.channel @c [2]
