// c = a + b over 4096 f32, 16 workgroups of 256 work-items.
func.func @vadd(%a: memref<4096xf32>, %b: memref<4096xf32>, %c: memref<4096xf32>) {
  %c16 = arith.constant 16 : index
  air.launch (%bx) in (%nbx=%c16) args(%A=%a, %B=%b, %C=%c) : memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
    air.segment @seg args(%sbx=%bx, %SA=%A, %SB=%B, %SC=%C) : index, memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
      %c256 = arith.constant 256 : index
      %c1 = arith.constant 1 : index
      air.herd @h tile (%tx, %ty) in (%sx=%c256, %sy=%c1) args(%hb=%sbx, %HA=%SA, %HB=%SB, %HC=%SC) : index, memref<4096xf32>, memref<4096xf32>, memref<4096xf32> {
        %c256h = arith.constant 256 : index
        %base = arith.muli %hb, %c256h : index
        %i = arith.addi %base, %tx : index
        %x = memref.load %HA[%i] : memref<4096xf32>
        %y = memref.load %HB[%i] : memref<4096xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %HC[%i] : memref<4096xf32>
      }
    }
  }
  return
}
