// y[4096] = 2 * x[4096] + 1, f32, as a two-stage pipeline of segments.
//
// The launch streams x in 1024-element blocks into @in; segment @scale doubles
// each block in L1 and passes it over @mid to segment @offset, which adds one and
// sends it over @out back to L3. Both segments live in one launch, so they are
// co-resident and run at the same time: while @offset works on block i, @scale
// already works on block i+1 (the channels have depth 2).
module {
  air.channel @in [1, 1] {depth = 2}
  air.channel @mid [1, 1] {depth = 2}
  air.channel @out [1, 1] {depth = 2}
  func.func @scale_offset(%arg0: memref<4096xf32>, %arg1: memref<4096xf32>) {
    %0 = air.launch async () in () args(%x=%arg0, %y=%arg1) : memref<4096xf32>, memref<4096xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c1024 = arith.constant 1024 : index
      %c4096 = arith.constant 4096 : index
      %start = air.wait_all async
      %sent = scf.for %i = %c0 to %c4096 step %c1024 iter_args(%t = %start) -> (!air.token) {
        %p = air.channel.put async [%t] @in[] (%x[%i] [%c1024] [%c1]) : (memref<4096xf32>)
        scf.yield %p : !air.token
      }
      %received = scf.for %i = %c0 to %c4096 step %c1024 iter_args(%t = %start) -> (!air.token) {
        %g = air.channel.get async [%t] @out[] (%y[%i] [%c1024] [%c1]) : (memref<4096xf32>)
        scf.yield %g : !air.token
      }
      %1 = air.segment @scale async {
        %c1_0 = arith.constant 1 : index
        %2 = air.herd @scale_herd async tile (%tx, %ty) in (%sx=%c1_0, %sy=%c1_0) {
          %c0_1 = arith.constant 0 : index
          %c1_1 = arith.constant 1 : index
          %c4 = arith.constant 4 : index
          %c1024_1 = arith.constant 1024 : index
          %two = arith.constant 2.000000e+00 : f32
          %t0, %buf = air.execute -> (memref<1024xf32, 2>) {
            %alloc = memref.alloc() : memref<1024xf32, 2>
            air.execute_terminator %alloc : memref<1024xf32, 2>
          }
          %done = scf.for %n = %c0_1 to %c4 step %c1_1 iter_args(%t = %t0) -> (!air.token) {
            %g = air.channel.get async [%t] @in[] (%buf[] [] []) : (memref<1024xf32, 2>)
            %e = air.execute [%g] {
              scf.for %j = %c0_1 to %c1024_1 step %c1_1 {
                %v = memref.load %buf[%j] : memref<1024xf32, 2>
                %w = arith.mulf %v, %two : f32
                memref.store %w, %buf[%j] : memref<1024xf32, 2>
              }
            }
            %p = air.channel.put async [%e] @mid[] (%buf[] [] []) : (memref<1024xf32, 2>)
            scf.yield %p : !air.token
          }
          %free = air.execute [%done] {
            memref.dealloc %buf : memref<1024xf32, 2>
          }
        }
      }
      %3 = air.segment @offset async {
        %c1_0 = arith.constant 1 : index
        %4 = air.herd @offset_herd async tile (%tx, %ty) in (%sx=%c1_0, %sy=%c1_0) {
          %c0_1 = arith.constant 0 : index
          %c1_1 = arith.constant 1 : index
          %c4 = arith.constant 4 : index
          %c1024_1 = arith.constant 1024 : index
          %one = arith.constant 1.000000e+00 : f32
          %t0, %buf = air.execute -> (memref<1024xf32, 2>) {
            %alloc = memref.alloc() : memref<1024xf32, 2>
            air.execute_terminator %alloc : memref<1024xf32, 2>
          }
          %done = scf.for %n = %c0_1 to %c4 step %c1_1 iter_args(%t = %t0) -> (!air.token) {
            %g = air.channel.get async [%t] @mid[] (%buf[] [] []) : (memref<1024xf32, 2>)
            %e = air.execute [%g] {
              scf.for %j = %c0_1 to %c1024_1 step %c1_1 {
                %v = memref.load %buf[%j] : memref<1024xf32, 2>
                %w = arith.addf %v, %one : f32
                memref.store %w, %buf[%j] : memref<1024xf32, 2>
              }
            }
            %p = air.channel.put async [%e] @out[] (%buf[] [] []) : (memref<1024xf32, 2>)
            scf.yield %p : !air.token
          }
          %free = air.execute [%done] {
            memref.dealloc %buf : memref<1024xf32, 2>
          }
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
