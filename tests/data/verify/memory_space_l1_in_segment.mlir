// RULE: memory-space
// L1 is per-PE memory: allocate it in the herd.
func.func @f() {
  air.launch () in () {
    air.segment @s {
      %b = memref.alloc() : memref<64xf32, 2> // ERROR
    }
  }
  return
}
