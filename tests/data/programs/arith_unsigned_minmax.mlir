// The integer and float arith ops the other programs leave out: unsigned division
// and remainder, signed and unsigned min/max, arithmetic and logical shifts,
// maximumf/minnumf and fptoui, ending in an explicitly spelled func.return.
func.func @unsigned_and_extremes(%a: i32, %b: i32, %x: f32, %y: f32) -> (i32, f32, i32) {
  %q = arith.divui %a, %b : i32
  %r = arith.remui %a, %b : i32
  %lo = arith.minsi %q, %r : i32
  %hi = arith.maxui %q, %r : i32
  %ulo = arith.minui %lo, %hi : i32
  %s1 = arith.shrsi %ulo, %b : i32
  %s2 = arith.shrui %s1, %b : i32
  %m = arith.maximumf %x, %y : f32
  %n = arith.minnumf %m, %y : f32
  %u = arith.fptoui %n : f32 to i32
  func.return %s2, %n, %u : i32, f32, i32
}
