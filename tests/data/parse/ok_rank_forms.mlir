// expect-ok
// Scale-out syntax (issue 13): a universe, air.rank in its sync, async and
// dependency forms, with and without universe and args, the implicit and the
// written rank terminator, symmetric allocations and both forms of src_rank /
// dst_rank.
air.channel @mail [2, 2] {channel_type = "gpu_symmetric_heap", depth = 2}
func.func @forms(%a: memref<16xf32>) {
  %c2 = arith.constant 2 : index
  %u = air.universe.alloc(%c2) : !air.universe
  %v = air.universe.alloc(%c2)
  %t0 = air.token.alloc : !air.token
  %t1 = air.rank async [%t0] universe(%u) (%r) in (%n=%c2) args(%x=%a) : memref<16xf32> {
    %s = memref.alloc() {air.symmetric} : memref<16xf32>
    air.dma_memcpy_nd (%s[] [] [], %x[] [] []) : (memref<16xf32>, memref<16xf32>)
    %c0 = arith.constant 0 : index
    air.dma_memcpy_nd (%x[] [] [], %s[] [] []) src_rank(%c0) : (memref<16xf32>, memref<16xf32>)
    air.dma_memcpy_nd (%s[] [] [], %x[] [] []) dst_rank(%r) {id = 7 : i32} : (memref<16xf32>, memref<16xf32>)
    %t = air.dma_memcpy_nd async (%x[] [] [], %s[] [] []) {src_rank = 1 : i64} : (memref<16xf32>, memref<16xf32>)
    air.wait_all [%t]
    memref.dealloc %s : memref<16xf32>
    air.rank_terminator
  }
  air.rank sync (%i, %j) in (%ni=%c2, %nj=%c2) {
    %b = memref.alloc() : memref<4xf32>
    air.channel.put async @mail[%j, %i] (%b[] [] []) : (memref<4xf32>)
    air.channel.get @mail[%i, %j] (%b[] [] []) : (memref<4xf32>)
  }
  air.rank [%t1] universe(%v) (%k) in (%nk=%c2) {
  }
  return
}
