air.channel @c [99999999999999999999999, -1, 0x7fffffffffffffff]
func.func @n() {
  %c = arith.constant 340282366920938463463374607431768211456 : index
  %f = arith.constant 1.0e99999 : f32
  return
}
