// A ring: every rank writes its id into %x[0], sends %x to the next rank and
// receives its predecessor's into %y; then reads the next rank's symmetric copy
// of %x into %z (a cross-rank dma with a dynamic src_rank).
air.channel @links [64]
func.func @ring(%nr: index, %a: memref<4xi32>, %b: memref<4xi32>, %c: memref<4xi32>) {
  %u = air.universe.alloc(%nr) : !air.universe
  air.rank universe(%u) (%r) in (%n=%nr) args(%x=%a, %y=%b, %z=%c) : memref<4xi32>, memref<4xi32>, memref<4xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ri = arith.index_cast %r : index to i32
    memref.store %ri, %x[%c0] : memref<4xi32>
    %h = memref.alloc() {air.symmetric} : memref<4xi32>
    air.dma_memcpy_nd (%h[] [] [], %x[] [] []) : (memref<4xi32>, memref<4xi32>)
    %s = arith.addi %r, %c1 : index
    %next = arith.remui %s, %n : index
    %t = air.channel.put async @links[%next] (%x[] [] []) : (memref<4xi32>)
    air.channel.get @links[%r] (%y[] [] []) : (memref<4xi32>)
    air.wait_all [%t]
    // a second collective: no rank reads %h before every rank has written it
    %fence = memref.alloc() {air.symmetric} : memref<1xi32>
    air.dma_memcpy_nd (%z[] [] [], %h[] [] []) src_rank(%next) : (memref<4xi32>, memref<4xi32>)
    memref.dealloc %fence : memref<1xi32>
    memref.dealloc %h : memref<4xi32>
  }
  return
}
