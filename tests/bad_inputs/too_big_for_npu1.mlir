// A failing input (tests/bad_inputs/README.md): a valid program that does not fit
// npu1 — a 10x10 herd (npu1 has 16 tiles) whose PEs each allocate 4 TiB of L1.
// `airc verify --target npu1` rejects it as compile and report do; on the CPU the
// allocation fails at run time with an error naming it.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %c10 = arith.constant 10 : index
      air.herd @h tile (%x, %y) in (%sx=%c10, %sy=%c10) {
        %b = memref.alloc() : memref<1099511627776xf32, 2>
        memref.dealloc %b : memref<1099511627776xf32, 2>
      }
    }
  }
  return
}
