// C[512x512] (f32) = A[512x512] (bf16) * B[512x512] (bf16), on a 4x4 herd.
//
// The bf16 twin of matmul_4x4.mlir: the same L3 -> L2 -> L1 channel pipeline,
// double-buffered with depth-2 channels and ping/pong buffers at L2 and L1, but
// A and B travel and sit in memory as bf16 (half the bytes of f32) while every
// tile accumulates in f32: linalg.matmul widens each bf16 product term to the f32
// output type, as mixed-precision matmuls on NPUs do.
//   launch  : streams A's row block and B's column block, 32 wide in k (@l3_a, @l3_b)
//   segment : receives them into L2 and hands each herd tile its 32x32 pieces
//             (@to_a, @to_b); collects the 16 f32 result tiles (@from_c) and sends
//             the 128x128 block back to L3 (@l3_c)
//   herd    : tile (x, y) accumulates C[x, y] += A[x, k] * B[k, y] in L1
// Sizes: L1 per tile 4 x 2 KiB + 4 KiB = 12 KiB; L2 per segment 4 x 8 KiB + 64 KiB.
#map = affine_map<()[s0] -> (s0 * 128)>
#map1 = affine_map<()[s0] -> (s0 * 32)>
#map2 = affine_map<()[s0] -> (s0 + 32)>
module {
  air.channel @l3_a [1, 1] {depth = 2}
  air.channel @l3_b [1, 1] {depth = 2}
  air.channel @l3_c [1, 1]
  air.channel @to_a [4, 4] {depth = 2}
  air.channel @to_b [4, 4] {depth = 2}
  air.channel @from_c [4, 4]
  func.func @matmul_512_bf16(%arg0: memref<512x512xbf16>, %arg1: memref<512x512xbf16>, %arg2: memref<512x512xf32>) {
    %c4 = arith.constant 4 : index
    %0 = air.launch async (%bx, %by) in (%nbx=%c4, %nby=%c4) args(%A=%arg0, %B=%arg1, %C=%arg2) : memref<512x512xbf16>, memref<512x512xbf16>, memref<512x512xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %row = affine.apply #map()[%bx]
      %col = affine.apply #map()[%by]
      %start = air.wait_all async
      %feed = scf.for %k = %c0 to %c512 step %c64 iter_args(%t = %start) -> (!air.token) {
        %k1 = affine.apply #map2()[%k]
        %pa0 = air.channel.put async [%t] @l3_a[] (%A[%row, %k] [%c128, %c32] [%c512, %c1]) : (memref<512x512xbf16>)
        %pb0 = air.channel.put async [%t] @l3_b[] (%B[%k, %col] [%c32, %c128] [%c512, %c1]) : (memref<512x512xbf16>)
        %pa1 = air.channel.put async [%pa0] @l3_a[] (%A[%row, %k1] [%c128, %c32] [%c512, %c1]) : (memref<512x512xbf16>)
        %pb1 = air.channel.put async [%pb0] @l3_b[] (%B[%k1, %col] [%c32, %c128] [%c512, %c1]) : (memref<512x512xbf16>)
        %next = air.wait_all async [%pa1, %pb1]
        scf.yield %next : !air.token
      }
      %drain = air.channel.get async [%start] @l3_c[] (%C[%row, %col] [%c128, %c128] [%c512, %c1]) : (memref<512x512xf32>)
      %seg = air.segment @matmul_bf16_seg async {
        %c0_0 = arith.constant 0 : index
        %c1_0 = arith.constant 1 : index
        %c4_0 = arith.constant 4 : index
        %c32_0 = arith.constant 32 : index
        %c64_0 = arith.constant 64 : index
        %c128_0 = arith.constant 128 : index
        %c512_0 = arith.constant 512 : index
        %ta0, %a_ping = air.execute -> (memref<128x32xbf16, 1>) {
          %alloc = memref.alloc() : memref<128x32xbf16, 1>
          air.execute_terminator %alloc : memref<128x32xbf16, 1>
        }
        %ta1, %a_pong = air.execute -> (memref<128x32xbf16, 1>) {
          %alloc = memref.alloc() : memref<128x32xbf16, 1>
          air.execute_terminator %alloc : memref<128x32xbf16, 1>
        }
        %tb0, %b_ping = air.execute -> (memref<32x128xbf16, 1>) {
          %alloc = memref.alloc() : memref<32x128xbf16, 1>
          air.execute_terminator %alloc : memref<32x128xbf16, 1>
        }
        %tb1, %b_pong = air.execute -> (memref<32x128xbf16, 1>) {
          %alloc = memref.alloc() : memref<32x128xbf16, 1>
          air.execute_terminator %alloc : memref<32x128xbf16, 1>
        }
        %tc, %c_l2 = air.execute -> (memref<128x128xf32, 1>) {
          %alloc = memref.alloc() : memref<128x128xf32, 1>
          air.execute_terminator %alloc : memref<128x128xf32, 1>
        }
        %herd = air.herd @matmul_bf16_herd async tile (%tx, %ty) in (%sx=%c4_0, %sy=%c4_0) {
          %c0_1 = arith.constant 0 : index
          %c64_1 = arith.constant 64 : index
          %c512_1 = arith.constant 512 : index
          %cst = arith.constant 0.000000e+00 : f32
          %t1, %a0 = air.execute -> (memref<32x32xbf16, 2>) {
            %alloc = memref.alloc() : memref<32x32xbf16, 2>
            air.execute_terminator %alloc : memref<32x32xbf16, 2>
          }
          %t2, %b0 = air.execute -> (memref<32x32xbf16, 2>) {
            %alloc = memref.alloc() : memref<32x32xbf16, 2>
            air.execute_terminator %alloc : memref<32x32xbf16, 2>
          }
          %t3, %a1 = air.execute -> (memref<32x32xbf16, 2>) {
            %alloc = memref.alloc() : memref<32x32xbf16, 2>
            air.execute_terminator %alloc : memref<32x32xbf16, 2>
          }
          %t4, %b1 = air.execute -> (memref<32x32xbf16, 2>) {
            %alloc = memref.alloc() : memref<32x32xbf16, 2>
            air.execute_terminator %alloc : memref<32x32xbf16, 2>
          }
          %t5, %acc = air.execute -> (memref<32x32xf32, 2>) {
            %alloc = memref.alloc() : memref<32x32xf32, 2>
            air.execute_terminator %alloc : memref<32x32xf32, 2>
          }
          %zero = air.execute [%t5] {
            linalg.fill ins(%cst : f32) outs(%acc : memref<32x32xf32, 2>)
          }
          %ready = air.wait_all async [%t1, %t2, %t3, %t4, %zero]
          // %ping / %pong: the last matmul that read the ping / pong buffers;
          // %got: the last gets, which keeps each channel's transfers in order.
          %r:3 = scf.for %k = %c0_1 to %c512_1 step %c64_1 iter_args(%ping = %ready, %pong = %ready, %got = %ready) -> (!air.token, !air.token, !air.token) {
            %ga0 = air.channel.get async [%ping, %got] @to_a[%tx, %ty] (%a0[] [] []) : (memref<32x32xbf16, 2>)
            %gb0 = air.channel.get async [%ping, %got] @to_b[%tx, %ty] (%b0[] [] []) : (memref<32x32xbf16, 2>)
            %ga1 = air.channel.get async [%pong, %ga0] @to_a[%tx, %ty] (%a1[] [] []) : (memref<32x32xbf16, 2>)
            %gb1 = air.channel.get async [%pong, %gb0] @to_b[%tx, %ty] (%b1[] [] []) : (memref<32x32xbf16, 2>)
            %m0 = air.execute [%ga0, %gb0, %pong] {
              linalg.matmul ins(%a0, %b0 : memref<32x32xbf16, 2>, memref<32x32xbf16, 2>) outs(%acc : memref<32x32xf32, 2>)
            }
            %m1 = air.execute [%ga1, %gb1, %m0] {
              linalg.matmul ins(%a1, %b1 : memref<32x32xbf16, 2>, memref<32x32xbf16, 2>) outs(%acc : memref<32x32xf32, 2>)
            }
            %g = air.wait_all async [%ga1, %gb1]
            scf.yield %m0, %m1, %g : !air.token, !air.token, !air.token
          }
          %out = air.channel.put async [%r#1] @from_c[%tx, %ty] (%acc[] [] []) : (memref<32x32xf32, 2>)
          %d0 = air.execute [%r#0] {
            memref.dealloc %a0 : memref<32x32xbf16, 2>
            memref.dealloc %b0 : memref<32x32xbf16, 2>
          }
          %d1 = air.execute [%r#1] {
            memref.dealloc %a1 : memref<32x32xbf16, 2>
            memref.dealloc %b1 : memref<32x32xbf16, 2>
          }
          %d2 = air.execute [%out] {
            memref.dealloc %acc : memref<32x32xf32, 2>
          }
        }
        %ready = air.wait_all async [%ta0, %ta1, %tb0, %tb1]
        // Same scheme one level up: %ping / %pong are the puts that last read the
        // ping / pong L2 buffers, %got the last gets from L3.
        %s:3 = scf.for %k = %c0_0 to %c512_0 step %c64_0 iter_args(%ping = %ready, %pong = %ready, %got = %ready) -> (!air.token, !air.token, !air.token) {
          %ga0 = air.channel.get async [%ping, %got] @l3_a[] (%a_ping[] [] []) : (memref<128x32xbf16, 1>)
          %gb0 = air.channel.get async [%ping, %got] @l3_b[] (%b_ping[] [] []) : (memref<32x128xbf16, 1>)
          %ga1 = air.channel.get async [%pong, %ga0] @l3_a[] (%a_pong[] [] []) : (memref<128x32xbf16, 1>)
          %gb1 = air.channel.get async [%pong, %gb0] @l3_b[] (%b_pong[] [] []) : (memref<32x128xbf16, 1>)
          %wa0 = air.wait_all async [%ga0, %pong]
          %pa0 = scf.parallel (%i, %j) = (%c0_0, %c0_0) to (%c4_0, %c4_0) step (%c1_0, %c1_0) init (%wa0) -> !air.token {
            %oi = affine.apply #map1()[%i]
            %p = air.channel.put async [%wa0] @to_a[%i, %j] (%a_ping[%oi, %c0_0] [%c32_0, %c32_0] [%c32_0, %c1_0]) : (memref<128x32xbf16, 1>)
            scf.reduce(%p : !air.token) {
            ^bb0(%lhs: !air.token, %rhs: !air.token):
              %both = air.wait_all async [%lhs, %rhs]
              scf.reduce.return %both : !air.token
            }
          }
          %wb0 = air.wait_all async [%gb0, %pong]
          %pb0 = scf.parallel (%i, %j) = (%c0_0, %c0_0) to (%c4_0, %c4_0) step (%c1_0, %c1_0) init (%wb0) -> !air.token {
            %oj = affine.apply #map1()[%j]
            %p = air.channel.put async [%wb0] @to_b[%i, %j] (%b_ping[%c0_0, %oj] [%c32_0, %c32_0] [%c128_0, %c1_0]) : (memref<32x128xbf16, 1>)
            scf.reduce(%p : !air.token) {
            ^bb0(%lhs: !air.token, %rhs: !air.token):
              %both = air.wait_all async [%lhs, %rhs]
              scf.reduce.return %both : !air.token
            }
          }
          %wa1 = air.wait_all async [%ga1, %pa0]
          %pa1 = scf.parallel (%i, %j) = (%c0_0, %c0_0) to (%c4_0, %c4_0) step (%c1_0, %c1_0) init (%wa1) -> !air.token {
            %oi = affine.apply #map1()[%i]
            %p = air.channel.put async [%wa1] @to_a[%i, %j] (%a_pong[%oi, %c0_0] [%c32_0, %c32_0] [%c32_0, %c1_0]) : (memref<128x32xbf16, 1>)
            scf.reduce(%p : !air.token) {
            ^bb0(%lhs: !air.token, %rhs: !air.token):
              %both = air.wait_all async [%lhs, %rhs]
              scf.reduce.return %both : !air.token
            }
          }
          %wb1 = air.wait_all async [%gb1, %pb0]
          %pb1 = scf.parallel (%i, %j) = (%c0_0, %c0_0) to (%c4_0, %c4_0) step (%c1_0, %c1_0) init (%wb1) -> !air.token {
            %oj = affine.apply #map1()[%j]
            %p = air.channel.put async [%wb1] @to_b[%i, %j] (%b_pong[%c0_0, %oj] [%c32_0, %c32_0] [%c128_0, %c1_0]) : (memref<32x128xbf16, 1>)
            scf.reduce(%p : !air.token) {
            ^bb0(%lhs: !air.token, %rhs: !air.token):
              %both = air.wait_all async [%lhs, %rhs]
              scf.reduce.return %both : !air.token
            }
          }
          %ping_done = air.wait_all async [%pa0, %pb0]
          %pong_done = air.wait_all async [%pa1, %pb1]
          %g = air.wait_all async [%ga1, %gb1]
          scf.yield %ping_done, %pong_done, %g : !air.token, !air.token, !air.token
        }
        %gc = scf.parallel (%i, %j) = (%c0_0, %c0_0) to (%c4_0, %c4_0) step (%c1_0, %c1_0) init (%tc) -> !air.token {
          %oi = affine.apply #map1()[%i]
          %oj = affine.apply #map1()[%j]
          %g = air.channel.get async [%tc] @from_c[%i, %j] (%c_l2[%oi, %oj] [%c32_0, %c32_0] [%c128_0, %c1_0]) : (memref<128x128xf32, 1>)
          scf.reduce(%g : !air.token) {
          ^bb0(%lhs: !air.token, %rhs: !air.token):
            %both = air.wait_all async [%lhs, %rhs]
            scf.reduce.return %both : !air.token
          }
        }
        %pc = air.channel.put async [%gc] @l3_c[] (%c_l2[] [] []) : (memref<128x128xf32, 1>)
        %d0 = air.execute [%s#0] {
          memref.dealloc %a_ping : memref<128x32xbf16, 1>
          memref.dealloc %b_ping : memref<32x128xbf16, 1>
        }
        %d1 = air.execute [%s#1] {
          memref.dealloc %a_pong : memref<128x32xbf16, 1>
          memref.dealloc %b_pong : memref<32x128xbf16, 1>
        }
        %d2 = air.execute [%pc] {
          memref.dealloc %c_l2 : memref<128x128xf32, 1>
        }
      }
    }
    air.wait_all [%0]
    return
  }
}
