// Host-level L3 transients for the schedule path: %a is freed before %c is made,
// so the memory plan may give %c the bytes of %a; %b lives across both. out = 2 *
// in + 1 only when every buffer holds what it should at each step.
func.func @transients(%in: memref<256xi32>, %out: memref<256xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %ta, %a = air.execute -> (memref<256xi32>) {
    %m = memref.alloc() : memref<256xi32>
    air.execute_terminator %m : memref<256xi32>
  }
  %d0 = air.dma_memcpy_nd async [%ta] (%a[] [] [], %in[] [] []) : (memref<256xi32>, memref<256xi32>)
  %tb, %b = air.execute [%d0] -> (memref<256xi32>) {
    %m = memref.alloc() : memref<256xi32>
    air.execute_terminator %m : memref<256xi32>
  }
  %d1 = air.dma_memcpy_nd async [%tb] (%b[] [] [], %a[] [] []) : (memref<256xi32>, memref<256xi32>)
  %fa = air.execute [%d1] {
    memref.dealloc %a : memref<256xi32>
  }
  %tc, %c = air.execute [%fa] -> (memref<256xi32>) {
    %m = memref.alloc() : memref<256xi32>
    air.execute_terminator %m : memref<256xi32>
  }
  %k = air.execute [%tc] {
    scf.for %i = %c0 to %c256 step %c1 {
      %x = memref.load %b[%i] : memref<256xi32>
      %y = arith.addi %x, %x : i32
      %o = arith.constant 1 : i32
      %z = arith.addi %y, %o : i32
      memref.store %z, %c[%i] : memref<256xi32>
    }
  }
  %d2 = air.dma_memcpy_nd async [%k] (%out[] [] [], %c[] [] []) : (memref<256xi32>, memref<256xi32>)
  %fb = air.execute [%d2] {
    memref.dealloc %b : memref<256xi32>
    memref.dealloc %c : memref<256xi32>
  }
  air.wait_all [%fb]
  return
}
