// One put reaches every receiver its channel broadcasts to: @all [1, 1] with
// broadcast_shape [2, 2] reaches all four tiles, @rows [2, 1] with [2, 2] both
// tiles of its row. Three rounds: each receiver reads every transfer once, in
// order, into its own buffer. Tile (x, y) returns all + row + 1000x + 100y.
air.channel @all [1, 1] {broadcast_shape = [2, 2]}
air.channel @rows [2, 1] {broadcast_shape = [2, 2]}
air.channel @back [2, 2]
func.func @bcast(%in: memref<3x16xi32>, %rin: memref<3x2x16xi32>, %out: memref<3x2x2x16xi32>) {
  %c1 = arith.constant 1 : index
  air.launch (%l) in (%nl=%c1) args(%a=%in, %b=%rin, %o=%out) : memref<3x16xi32>, memref<3x2x16xi32>, memref<3x2x2x16xi32> {
    air.segment @s args(%sa=%a, %sb=%b, %so=%o) : memref<3x16xi32>, memref<3x2x16xi32>, memref<3x2x2x16xi32> {
      %c0 = arith.constant 0 : index
      %c1s = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %h = air.herd @h async tile (%x, %y) in (%sx=%c2, %sy=%c2) {
        %c0h = arith.constant 0 : index
        %c1h = arith.constant 1 : index
        %c3h = arith.constant 3 : index
        %c16h = arith.constant 16 : index
        %c100 = arith.constant 100 : index
        %c1000 = arith.constant 1000 : index
        %bx = arith.muli %x, %c1000 : index
        %by = arith.muli %y, %c100 : index
        %tb = arith.addi %bx, %by : index
        %tv = arith.index_cast %tb : index to i32
        %b1 = memref.alloc() : memref<16xi32, 2>
        %b2 = memref.alloc() : memref<16xi32, 2>
        scf.for %r = %c0h to %c3h step %c1h {
          air.channel.get @all[%x, %y] (%b1[] [] []) : (memref<16xi32, 2>)
          air.channel.get @rows[%x, %y] (%b2[] [] []) : (memref<16xi32, 2>)
          scf.for %j = %c0h to %c16h step %c1h {
            %u = memref.load %b1[%j] : memref<16xi32, 2>
            %v = memref.load %b2[%j] : memref<16xi32, 2>
            %w = arith.addi %u, %v : i32
            %z = arith.addi %w, %tv : i32
            memref.store %z, %b1[%j] : memref<16xi32, 2>
          }
          air.channel.put @back[%x, %y] (%b1[] [] []) : (memref<16xi32, 2>)
        }
        memref.dealloc %b1 : memref<16xi32, 2>
        memref.dealloc %b2 : memref<16xi32, 2>
      }
      scf.for %r = %c0 to %c3 step %c1s {
        air.channel.put @all[%c0, %c0] (%sa[%r, %c0] [%c1s, %c16] [%c16, %c1s]) : (memref<3x16xi32>)
        scf.for %i = %c0 to %c2 step %c1s {
          air.channel.put @rows[%i, %c0] (%sb[%r, %i, %c0] [%c1s, %c1s, %c16] [%c32, %c16, %c1s]) : (memref<3x2x16xi32>)
        }
        scf.for %i = %c0 to %c2 step %c1s {
          scf.for %j = %c0 to %c2 step %c1s {
            air.channel.get @back[%i, %j] (%so[%r, %i, %j, %c0] [%c1s, %c1s, %c1s, %c16] [%c64, %c32, %c16, %c1s]) : (memref<3x2x2x16xi32>)
          }
        }
      }
      air.wait_all [%h]
    }
  }
  return
}
