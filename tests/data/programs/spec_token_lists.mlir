// The spec's own forms: air.token.alloc, [dependency = [...]], [affinity = [...]]
// and [concurrency = [...]] lists, `sync`, a launch without an iteration space,
// a segment iteration space written without `unroll`, and inline placement
// attributes (x_loc=0 ... backend-granularity=XCD, link_with="...").
module {
  air.channel @feed [1, 1]
  func.func private @kernel(memref<64xf32, 2>) attributes {link_with = "kernel.o"}
  func.func @spec_forms(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %part = air.token.alloc : !air.token
    %t0 = air.launch (%lx) in (%nx=%c1) args(%in=%arg0) : memref<64xf32> [affinity = [%part]] {
      %co = air.token.alloc : !air.token
      %c8 = arith.constant 8 : index
      %p = air.channel.put async @feed[] (%in[] [] []) : (memref<64xf32>)
      %s0 = air.segment @xcd (%sx) in (%n=%c8) args(%tk=%co) : !air.token x_loc=0 y_loc=0 x_size=1 y_size=1 backend-granularity=XCD [concurrency = [%co]] {
        %c2 = arith.constant 2 : index
        %h = air.token.alloc : !air.token
        %d = air.wait_all async
        %h0 = air.herd @warps tile (%x, %y) in (%hx=%c2, %hy=%c2) [dependency = [%d]] [affinity = [%h]] {
          %t1, %buf = air.execute -> (memref<64xf32, 2>) {
            %alloc = memref.alloc() : memref<64xf32, 2>
            air.execute_terminator %alloc : memref<64xf32, 2>
          }
          %t2 = air.execute [%t1] {
            memref.dealloc %buf : memref<64xf32, 2>
          }
        }
        air.herd @more sync tile (%x, %y) in (%hx=%c2, %hy=%c2) [dependency = [%h0]] [affinity = [%h]] {
        }
      }
      %s1 = air.segment @reader [concurrency = [%co]] {
        %c1_0 = arith.constant 1 : index
        %t1, %buf = air.execute -> (memref<64xf32, 1>) {
          %alloc = memref.alloc() : memref<64xf32, 1>
          air.execute_terminator %alloc : memref<64xf32, 1>
        }
        %g = air.channel.get [dependency = [%t1]] @feed[] (%buf[] [] []) : (memref<64xf32, 1>)
        %t2 = air.execute [%g] {
          memref.dealloc %buf : memref<64xf32, 1>
        }
      }
      air.wait_all [%p, %s0, %s1]
    }
    air.launch sync args(%out=%arg1) : memref<64xf32> {
      air.segment @single sync args(%o=%out) : memref<64xf32> {
        %c1_1 = arith.constant 1 : index
        air.herd @one tile (%x) in (%sx=%c1_1) args(%m=%o) : memref<64xf32> link_with="kernel.o" {
          %t1, %buf = air.execute -> (memref<64xf32, 2>) {
            %alloc = memref.alloc() : memref<64xf32, 2>
            air.execute_terminator %alloc : memref<64xf32, 2>
          }
          %d = air.dma_memcpy_nd async [%t1] (%buf[] [] [], %m[] [] []) : (memref<64xf32, 2>, memref<64xf32>)
          %k = air.execute [%d] {
            func.call @kernel(%buf) : (memref<64xf32, 2>) -> ()
          }
          %w = air.dma_memcpy_nd async [%k] (%m[] [] [], %buf[] [] []) : (memref<64xf32>, memref<64xf32, 2>)
          %t2 = air.execute [%w] {
            memref.dealloc %buf : memref<64xf32, 2>
          }
        }
      }
    }
    air.wait_all [%t0]
    return
  }
}
