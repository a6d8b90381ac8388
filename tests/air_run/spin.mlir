// A processing element that computes for as long as it is told: %n iterations
// of a dependent add in L1, then the total is written to %out[0]. With a huge %n
// it outlives any reasonable --timeout, which must end the run with exit 1.
func.func @spin(%n: index, %out: memref<1xf32>) {
  air.launch () in () args(%ln=%n, %lo=%out) : index, memref<1xf32> {
    air.segment @seg args(%sn=%ln, %so=%lo) : index, memref<1xf32> {
      %c1 = arith.constant 1 : index
      air.herd @worker tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%hn=%sn, %ho=%so) : index, memref<1xf32> {
        %c0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %one = arith.constant 1.000000e+00 : f32
        %zero = arith.constant 0.000000e+00 : f32
        %acc = memref.alloc() : memref<1xf32, 2>
        memref.store %zero, %acc[%c0] : memref<1xf32, 2>
        scf.for %i = %c0 to %hn step %c1_0 {
          %v = memref.load %acc[%c0] : memref<1xf32, 2>
          %w = arith.addf %v, %one : f32
          memref.store %w, %acc[%c0] : memref<1xf32, 2>
        }
        air.dma_memcpy_nd (%ho[] [] [], %acc[] [] []) : (memref<1xf32>, memref<1xf32, 2>)
        memref.dealloc %acc : memref<1xf32, 2>
      }
    }
  }
  return
}
