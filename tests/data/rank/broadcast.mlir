// Broadcast between ranks: rank 0 sends two transfers (x[0] = 7, then 107) on
// a channel whose one put index reaches all 4 ranks (broadcast_shape), and
// every rank, rank 0 included, receives both in order into %y and %z. Depth 2,
// so rank 0's blocking puts complete before its own gets. Run in process and
// across processes (tests/test_rank_wire.c).
air.channel @bc [1] {broadcast_shape = [4], depth = 2}
func.func @broadcast(%nr: index, %a: memref<4xi32>, %b: memref<4xi32>, %c: memref<4xi32>) {
  air.rank (%r) in (%n=%nr) args(%x=%a, %y=%b, %z=%c) : memref<4xi32>, memref<4xi32>, memref<4xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %is0 = arith.cmpi eq, %r, %c0 : index
    scf.if %is0 {
      %two = arith.subi %n, %c2 : index
      scf.for %i = %c0 to %two step %c1 {
        %ii = arith.index_cast %i : index to i32
        %h = arith.constant 100 : i32
        %s = arith.constant 7 : i32
        %m = arith.muli %ii, %h : i32
        %v = arith.addi %m, %s : i32
        memref.store %v, %x[%c0] : memref<4xi32>
        air.channel.put @bc[%c0] (%x[] [] []) : (memref<4xi32>)
      }
    }
    air.channel.get @bc[%r] (%y[] [] []) : (memref<4xi32>)
    air.channel.get @bc[%r] (%z[] [] []) : (memref<4xi32>)
  }
  return
}
