// Sync ops are barriers: the blocking wait_all (op 2), the sync launch (op 5) and
// the sync dealloc (op 8) run after everything before them and before everything
// after them. Ops 0, 1 and 3, 4 are independent of each other.
module {
  func.func @barriers(%arg0: memref<64xf32>) {
    %t0 = air.wait_all async
    %t1 = air.wait_all async
    air.wait_all [%t0]
    %t2 = air.wait_all async
    %t3 = air.wait_all async
    air.launch args(%a=%arg0) : memref<64xf32> {
    }
    %t4 = air.wait_all async [%t2]
    %b = memref.alloc() : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
    %t5 = air.wait_all async
    return
  }
}
