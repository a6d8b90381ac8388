// expect-ok
// Trailing locations, location aliases and a dialect-resources block are skipped.
#loc = loc("matmul.py":12:3)
#loc1 = loc(fused<#loc>["x"])
#map = affine_map<(d0) -> (d0 * 2)> 
module {
  func.func @f(%arg0: index loc("a.py":1:1), %arg1: memref<4xf32> loc(#loc)) -> index {
    %0 = affine.apply #map(%arg0) loc(#loc1)
    %c0 = arith.constant 0 : index loc(callsite("f" at "g"))
    return %0 : index loc(unknown)
  } loc(#loc)
} loc(#loc)
{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000"
    }
  }
#-}
