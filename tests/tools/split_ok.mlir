// Three independent, valid inputs (the last separator has trailing blanks).
air.channel @ch [1, 1]
func.func @producer_consumer(%arg0: memref<64xi32>, %arg1: memref<64xi32>) {
  air.launch () in () args(%src=%arg0, %dst=%arg1) : memref<64xi32>, memref<64xi32> {
    %p = air.channel.put async @ch[] (%src[] [] []) : (memref<64xi32>)
    air.segment @s {
      %c1 = arith.constant 1 : index
      air.herd @h tile (%x, %y) in (%sx=%c1, %sy=%c1) {
        %buf = memref.alloc() : memref<64xi32, 2>
        air.channel.get @ch[] (%buf[] [] []) : (memref<64xi32, 2>)
        memref.dealloc %buf : memref<64xi32, 2>
      }
    }
    air.wait_all [%p]
  }
  return
}

// -----
func.func @tokens() {
  %t0 = air.wait_all async
  %t1 = air.wait_all async [%t0]
  air.wait_all [%t0, %t1]
  return
}
// -----  
func.func @copy(%arg0: memref<128xbf16>, %arg1: memref<128xbf16>) {
  %t = air.launch async () in () args(%a=%arg0, %b=%arg1) : memref<128xbf16>, memref<128xbf16> {
    %s = air.segment @copy_seg async args(%sa=%a, %sb=%b) : memref<128xbf16>, memref<128xbf16> {
      %c1 = arith.constant 1 : index
      %h = air.herd @copy_herd async tile (%x, %y) in (%sx=%c1, %sy=%c1) args(%ha=%sa, %hb=%sb) : memref<128xbf16>, memref<128xbf16> {
        %t0, %l1 = air.execute -> (memref<128xbf16, 2>) {
          %alloc = memref.alloc() : memref<128xbf16, 2>
          air.execute_terminator %alloc : memref<128xbf16, 2>
        }
        %in = air.dma_memcpy_nd async [%t0] (%l1[] [] [], %ha[] [] []) : (memref<128xbf16, 2>, memref<128xbf16>)
        %out = air.dma_memcpy_nd async [%in] (%hb[] [] [], %l1[] [] []) : (memref<128xbf16>, memref<128xbf16, 2>)
        %free = air.execute [%out] {
          memref.dealloc %l1 : memref<128xbf16, 2>
        }
      }
    }
  }
  air.wait_all [%t]
  return
}
