// RULE: rank
// TARGET: npu1
// The NPU backend does not interpret ranks (spec 2.4: "the NPU backend does not
// support these attributes").
func.func @f() {
  %c2 = arith.constant 2 : index
  air.rank (%r) in (%n=%c2) { // ERROR
  }
  return
}
